from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Policy:
    gpu_batch_size: int
    num_gpu_batches: int
    cache_cpu_percent: float
    cache_disk_percent: float
    overlap: bool = True
    pin_weight: bool = True
    verify_offload: bool = False
    disk_workers: int = 2

    @property
    def cache_gpu_percent(self) -> float:
        return 100 - self.cache_cpu_percent - self.cache_disk_percent


GB = 1 << 30
CACHE_FILE_FMT = "cache_l{layer:03d}.pt"
