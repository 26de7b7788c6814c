from hicache.cache_controller import HiCacheController
from hicache.pool_host import MHATokenToKVPoolHost

__all__ = ["HiCacheController", "MHATokenToKVPoolHost"]
