from .controller import HiCacheController
from .device_pool import NumbaMHATokenToKVPool, PageAllocator
from .host_pool import NumbaMHATokenToKVPoolHost

__all__ = [
    "HiCacheController",
    "NumbaMHATokenToKVPool",
    "NumbaMHATokenToKVPoolHost",
    "PageAllocator",
]
