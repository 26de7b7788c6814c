from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class Policy:
    gpu_batch_size: int
    num_heads: int
    head_dim: int
    max_seq_len: int
    cpu_cache_compute: bool = True
    comp_dtype: torch.dtype = torch.float16
    cpu_dtype: torch.dtype = torch.float32
