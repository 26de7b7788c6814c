"""Hierarchical KV cache: device pool, pinned host pool and the cache controller."""

from hicache.controller import CacheOperation, HiCacheAck, HiCacheController
from hicache.host_pool import HostKVCache
from hicache.memory_pool import DeviceKVPool, TokenToKVPoolAllocator

__all__ = [
    "CacheOperation",
    "DeviceKVPool",
    "HiCacheAck",
    "HiCacheController",
    "HostKVCache",
    "TokenToKVPoolAllocator",
]
