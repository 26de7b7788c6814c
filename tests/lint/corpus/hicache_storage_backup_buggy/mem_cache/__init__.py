from .cache_controller import HiCacheController, StorageOperation
from .hicache_storage import HiCacheFile, HiCacheStorage, HiCacheStorageConfig
from .hiradix_cache import HiRadixCache
from .memory_pool_host import MHATokenToKVPoolHost
