from .config import CacheConfig
from .static_cache import OffloadedStaticCache

__all__ = ["CacheConfig", "OffloadedStaticCache"]
