from mem_cache.controller import HiCacheController
from mem_cache.device_pool import MHATokenToKVPool, TokenToKVPoolAllocator
from mem_cache.host_pool import MHATokenToKVPoolHost
from mem_cache.layer_events import LayerDoneCounter

__all__ = [
    "HiCacheController",
    "LayerDoneCounter",
    "MHATokenToKVPool",
    "MHATokenToKVPoolHost",
    "TokenToKVPoolAllocator",
]
