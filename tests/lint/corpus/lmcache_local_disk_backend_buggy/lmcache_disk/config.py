from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass
class LocalDiskConfig:
    path: str
    max_local_disk_size_gb: float = 20.0
    num_writer_threads: int = 4
    pinned_slot_mb: int = 64
    num_pinned_slots: int = 8
    verify_checksum: bool = True

    @property
    def max_bytes(self) -> int:
        return int(self.max_local_disk_size_gb * (1 << 30))

    @property
    def pinned_slot_bytes(self) -> int:
        return self.pinned_slot_mb << 20

    @classmethod
    def from_env(cls) -> "LocalDiskConfig":
        return cls(
            path=os.environ.get("LMCACHE_LOCAL_DISK", "/tmp/lmcache_disk"),
            max_local_disk_size_gb=float(os.environ.get("LMCACHE_MAX_LOCAL_DISK_SIZE", 20)),
            num_writer_threads=int(os.environ.get("LMCACHE_DISK_WRITERS", 4)),
            verify_checksum=os.environ.get("LMCACHE_DISK_CHECKSUM", "1") == "1",
        )
