import dataclasses

import torch

GB = 1 << 30
DEFAULT_IO_WORKERS = 2


@dataclasses.dataclass(frozen=True)
class Policy:
    gpu_batch_size: int
    num_gpu_batches: int

    # percent = a means a%
    cache_gpu_percent: float
    cache_cpu_percent: float

    # Whether to overlap the I/O and compute
    overlap: bool

    # Whether to use pinned memory for the cache on CPU
    pin_cache: bool = True

    cache_dtype: torch.dtype = torch.float16
    io_workers: int = DEFAULT_IO_WORKERS

    @property
    def cache_disk_percent(self) -> float:
        return 100 - self.cache_gpu_percent - self.cache_cpu_percent


@dataclasses.dataclass(frozen=True)
class ModelShape:
    num_layers: int
    n_head: int
    head_dim: int
    max_seq_len: int

    def cache_shape(self, batch: int) -> tuple[int, int, int]:
        # (s, b * n_head, head_dim)
        return (self.max_seq_len, batch * self.n_head, self.head_dim)
