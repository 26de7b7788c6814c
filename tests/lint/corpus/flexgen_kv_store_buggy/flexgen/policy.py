import dataclasses
from typing import List


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


@dataclasses.dataclass
class Task:
    inputs: List[List[int]]
    prompt_len: int
    gen_len: int
