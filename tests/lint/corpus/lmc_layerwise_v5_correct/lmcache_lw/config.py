# SPDX-License-Identifier: Apache-2.0
# Standard
from dataclasses import dataclass
from typing import Optional


@dataclass
class LMCacheEngineConfig:
    chunk_size: int = 256
    local_cpu: bool = True
    max_local_cpu_size: float = 5.0  # GB
    local_disk: Optional[str] = None
    max_local_disk_size: float = 0.0  # GB
    use_layerwise: bool = True
    save_unfull_chunk: bool = False

    @staticmethod
    def from_defaults(**kwargs) -> "LMCacheEngineConfig":
        cfg = LMCacheEngineConfig(**kwargs)
        if cfg.local_disk is not None and cfg.max_local_disk_size <= 0:
            raise ValueError("max_local_disk_size must be positive when local_disk is set")
        return cfg
