from .cache_controller import HiCacheController
from .memory_pool import MHATokenToKVPool
from .memory_pool_host import MHATokenToKVPoolHost
from .operations import CacheOperation

__all__ = [
    "CacheOperation",
    "HiCacheController",
    "MHATokenToKVPool",
    "MHATokenToKVPoolHost",
]
