from .configuration import OffloadedCacheConfig
from .cache_utils import OffloadedKVCache

__all__ = ["OffloadedCacheConfig", "OffloadedKVCache"]
