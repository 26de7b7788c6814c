from dataclasses import dataclass

import torch


@dataclass
class ZeroOffloadConfig:
    overlap_comm: bool = True
    pin_memory: bool = True
    reduce_bucket_size: int = 50_000_000
    gradient_predivide_factor: float = 1.0
    grad_dtype: torch.dtype = torch.bfloat16
    lr: float = 1e-4
    betas: tuple = (0.9, 0.999)
    eps: float = 1e-8
    weight_decay: float = 0.0
