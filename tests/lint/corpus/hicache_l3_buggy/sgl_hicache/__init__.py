"""Hierarchical KV cache: device pool -> pinned host pool (L2) -> storage (L3)."""

from sgl_hicache.cache_controller import HiCacheController
from sgl_hicache.memory_pool_host import MHATokenToKVPoolHost
from sgl_hicache.storage import HiCacheFile, HiCacheStorage
