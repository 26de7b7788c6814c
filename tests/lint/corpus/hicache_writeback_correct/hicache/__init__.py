from hicache.cache_controller import HiCacheController
from hicache.memory_pool_host import MHATokenToKVPoolHost

__all__ = ["HiCacheController", "MHATokenToKVPoolHost"]
