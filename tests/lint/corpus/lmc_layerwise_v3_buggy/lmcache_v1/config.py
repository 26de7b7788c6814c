# SPDX-License-Identifier: Apache-2.0
# Standard
from dataclasses import dataclass
from typing import Optional


@dataclass
class LMCacheEngineConfig:
    chunk_size: int = 256
    local_disk: Optional[str] = None
    max_local_disk_size: float = 5.0  # GB
    max_disk_workers: int = 4
    use_layerwise: bool = True
    save_unfull_chunk: bool = False

    def disk_path(self) -> str:
        if self.local_disk is None:
            raise ValueError("local_disk is not configured")
        return self.local_disk.removeprefix("file://")
