from __future__ import annotations

import dataclasses

import torch


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
    # Whether to use pinned memory for weights on CPU
    pin_weight: bool = True

    @property
    def w_disk_percent(self) -> float:
        return 100 - self.w_gpu_percent - self.w_cpu_percent


@dataclasses.dataclass(frozen=True)
class ModelConfig:
    num_hidden_layers: int
    hidden_size: int
    n_head: int
    vocab_size: int
    max_seq_len: int
    dtype: torch.dtype = torch.float16
