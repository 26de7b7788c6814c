from .controller import CacheOperation, HiCacheAck, HiCacheController
from .host_pool import MHATokenToKVPoolHost
from .tree_cache import HiRadixCache

__all__ = [
    "CacheOperation",
    "HiCacheAck",
    "HiCacheController",
    "HiRadixCache",
    "MHATokenToKVPoolHost",
]
