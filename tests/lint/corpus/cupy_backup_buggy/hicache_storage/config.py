import os
from dataclasses import dataclass

STORAGE_BATCH_SIZE = 128
DEFAULT_STORAGE_DIR = os.environ.get("SGLANG_HICACHE_FILE_BACKEND_STORAGE_DIR", "/tmp/hicache")


@dataclass
class HiCacheStorageConfig:
    tp_rank: int
    tp_size: int
    model_name: str
    page_size: int = 64
    staging_pages: int = 256
    inline_flush_pages: int = 4
    io_workers: int = 2
    storage_dir: str = DEFAULT_STORAGE_DIR
