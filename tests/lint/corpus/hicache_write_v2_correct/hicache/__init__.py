from hicache.cache_controller import HiCacheAck, HiCacheController
from hicache.memory_pool import MHATokenToKVPool
from hicache.memory_pool_host import MHATokenToKVPoolHost

__all__ = [
    "HiCacheAck",
    "HiCacheController",
    "MHATokenToKVPool",
    "MHATokenToKVPoolHost",
]
