from hicache_l3.storage_controller import HiCacheStorageController

__all__ = ["HiCacheStorageController"]
