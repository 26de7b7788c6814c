from sgl_hicache.cache_controller import CacheOperation, HiCacheController
from sgl_hicache.memory_pool_host import MHATokenToKVPoolHost

__all__ = ["CacheOperation", "HiCacheController", "MHATokenToKVPoolHost"]
