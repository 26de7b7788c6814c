import dataclasses
from typing import NamedTuple

import torch


@dataclasses.dataclass(frozen=True)
class Policy:
    gpu_batch_size: int
    num_gpu_batches: int

    # percent = a means a%
    cache_gpu_percent: float
    cache_cpu_percent: float

    # Whether to overlap the I/O and compute
    overlap: bool = True

    # Whether to use pinned memory for the cache on CPU
    pin_cache: bool = True


@dataclasses.dataclass(frozen=True)
class OptConfig:
    name: str = "opt-6.7b"
    num_hidden_layers: int = 32
    n_head: int = 32
    input_dim: int = 4096
    dtype: torch.dtype = torch.float16

    @property
    def head_dim(self) -> int:
        return self.input_dim // self.n_head


class Task(NamedTuple):
    prompt_len: int
    gen_len: int
