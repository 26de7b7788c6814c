from __future__ import annotations

from dataclasses import dataclass
from typing import Optional


@dataclass
class OffloadConfig:
    num_layers: int
    num_host_blocks: int
    block_size: int = 16
    num_kv_heads: int = 8
    head_size: int = 128
    dtype: str = "float16"
    spill_dir: Optional[str] = None
    spill_workers: int = 2

    @property
    def block_shape(self) -> tuple[int, ...]:
        return (2, self.block_size, self.num_kv_heads, self.head_size)
