from hicache_l3.cache_controller import HiCacheStorageController
from hicache_l3.hicache_storage import HiCacheFile

__all__ = ["HiCacheFile", "HiCacheStorageController"]
