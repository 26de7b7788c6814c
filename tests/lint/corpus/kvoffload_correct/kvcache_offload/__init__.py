from .cache_utils import OffloadedCache
from .configuration import OffloadedCacheConfig

__all__ = ["OffloadedCache", "OffloadedCacheConfig"]
