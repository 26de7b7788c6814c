from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Optional

import torch


@dataclass
class MemoryObj:
    tensor: torch.Tensor
    chunk_hash: int = 0
    layer_id: int = -1
    ref_count: int = field(default=1)

    def ref_count_down(self) -> None:
        self.ref_count -= 1


class PinnedMemoryAllocator:
    """Hands out pinned host chunks of shape [blocks, 2, block_size, heads, dim]."""

    def __init__(self, block_shape: tuple, dtype: torch.dtype, max_blocks: int):
        self.block_shape = block_shape
        self.dtype = dtype
        self.max_blocks = max_blocks
        self._used = 0
        self._lock = threading.Lock()

    def allocate(self, num_blocks: int) -> Optional[MemoryObj]:
        with self._lock:
            if self._used + num_blocks > self.max_blocks:
                return None
            self._used += num_blocks
        tensor = torch.empty(
            (num_blocks, *self.block_shape), dtype=self.dtype, pin_memory=True
        )
        return MemoryObj(tensor=tensor)

    def free(self, obj: MemoryObj) -> None:
        with self._lock:
            self._used -= obj.tensor.shape[0]
