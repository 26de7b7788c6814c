from .cache import PagedKVCache

__all__ = ["PagedKVCache"]
