from hicache.controller import HiCacheController
from hicache.pool_host import MHATokenToKVPoolHost

__all__ = ["HiCacheController", "MHATokenToKVPoolHost"]
