from dataclasses import dataclass


@dataclass
class LocalDiskConfig:
    local_disk_path: str = "/tmp/lmcache_disk"
    max_local_disk_size: float = 20.0  # GB
    max_workers: int = 4
    chunk_size: int = 256
