"""Engine configuration, in the shape of LMCache's LMCacheEngineConfig (v0)."""

from dataclasses import dataclass
from typing import Optional


@dataclass
class LMCacheEngineConfig:
    chunk_size: int = 256
    local_device: Optional[str] = "file:///tmp/lmcache_disk/"
    max_local_disk_chunks: int = 4096
    remote_url: Optional[str] = None

    @property
    def local_dir(self) -> str:
        assert self.local_device is not None
        return self.local_device[len("file://"):]
