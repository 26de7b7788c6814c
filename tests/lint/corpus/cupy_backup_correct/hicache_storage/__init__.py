from hicache_storage.backup import StorageBackupWorker
from hicache_storage.config import HiCacheStorageConfig
from hicache_storage.file_backend import HiCacheFile

__all__ = ["HiCacheFile", "HiCacheStorageConfig", "StorageBackupWorker"]
