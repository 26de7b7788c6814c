"""Hierarchical KV cache (device <-> host) for the radix cache."""

from .cache_controller import CacheOperation, HiCacheController
from .config import HiCacheConfig
from .memory_pool_host import MHATokenToKVPoolHost
