import dataclasses

import torch

GB = 1 << 30


@dataclasses.dataclass(frozen=True)
class Policy:
    gpu_batch_size: int
    num_gpu_batches: int

    # percent = a means a%
    w_gpu_percent: float
    w_cpu_percent: float
    cache_gpu_percent: float
    cache_cpu_percent: float

    # Whether to overlap the I/O and compute
    overlap: bool = True

    # Whether to use pinned memory for weights and cache on CPU
    pin_weight: bool = True
    pin_cache: bool = True

    # Number of worker threads that issue cache stores
    num_store_workers: int = 2

    @property
    def w_disk_percent(self):
        return 100 - self.w_gpu_percent - self.w_cpu_percent


DEFAULT_DTYPE = torch.float16
