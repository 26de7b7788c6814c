from __future__ import annotations

from dataclasses import dataclass


@dataclass
class LMCacheEngineConfig:
    chunk_size: int = 256
    local_disk: str = "/tmp/lmcache_disk"
    max_local_disk_size_gb: float = 20.0
    num_disk_workers: int = 4
    use_layerwise: bool = True
    # overlap the per-layer offload with the next layer's compute
    layerwise_sync: bool = False
