from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import torch

STR_DTYPE_TO_TORCH_DTYPE = {
    "half": torch.half,
    "bfloat16": torch.bfloat16,
    "float": torch.float,
    "fp8_e5m2": torch.uint8,
}


@dataclass
class CacheConfig:
    block_size: int
    gpu_memory_utilization: float
    swap_space_bytes: int
    cache_dtype: str = "auto"
    num_gpu_blocks: Optional[int] = None
    num_cpu_blocks: Optional[int] = None

    def __post_init__(self) -> None:
        if self.cache_dtype not in ("auto", "fp8_e5m2"):
            raise ValueError(f"Unknown kv cache dtype: {self.cache_dtype}")
        if not 0.0 < self.gpu_memory_utilization <= 1.0:
            raise ValueError("gpu_memory_utilization must be in (0, 1].")
