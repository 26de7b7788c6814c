from dataclasses import dataclass


@dataclass
class HiCacheStorageConfig:
    storage_dir: str = "/tmp/hicache_storage"
    page_size: int = 64
    backup_queue_timeout_s: float = 1.0
    staging_pages: int = 8
