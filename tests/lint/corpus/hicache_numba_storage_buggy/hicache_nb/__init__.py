"""HiCache host tier with numba-driven D2H and a file-backed storage tier."""

from .cache_controller import CacheOperation, HiCacheController
from .hicache_storage import HiCacheFile
from .memory_pool_host import MHATokenToKVPoolHost
