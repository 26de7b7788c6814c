from .static_cache import OffloadedStaticCache

__all__ = ["OffloadedStaticCache"]
