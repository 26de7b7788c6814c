from __future__ import annotations

import dataclasses

import numpy as np


@dataclasses.dataclass(frozen=True)
class CacheConfig:
    num_layers: int
    num_kv_heads: int
    head_size: int
    block_size: int = 16
    num_gpu_blocks: int = 2048
    num_cpu_blocks: int = 4096
    cache_dtype: str = "float16"

    @property
    def block_shape(self) -> tuple[int, ...]:
        return (self.num_layers, 2, self.block_size, self.num_kv_heads, self.head_size)

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(self.cache_dtype)

    @property
    def block_bytes(self) -> int:
        return int(np.prod(self.block_shape)) * self.dtype.itemsize
