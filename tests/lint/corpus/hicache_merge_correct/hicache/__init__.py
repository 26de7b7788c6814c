from .controller import HiCacheController
from .host_pool import MHATokenToKVPoolHost
from .operations import CacheOperation, HiCacheAck

__all__ = [
    "CacheOperation",
    "HiCacheAck",
    "HiCacheController",
    "MHATokenToKVPoolHost",
]
