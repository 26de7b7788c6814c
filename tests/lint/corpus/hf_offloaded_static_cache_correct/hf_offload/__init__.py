from .cache_utils import OffloadedStaticCache
from .configuration import OffloadCacheConfig
from .generation import greedy_decode

__all__ = ["OffloadedStaticCache", "OffloadCacheConfig", "greedy_decode"]
