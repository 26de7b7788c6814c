from dataclasses import dataclass


@dataclass
class LMCacheConfig:
    chunk_blocks: int = 16
    num_pinned_buffers: int = 64
    local_disk: str = "/tmp/lmcache_disk"
    max_local_disk_workers: int = 4
    disk_file_suffix: str = ".kvchunk"
