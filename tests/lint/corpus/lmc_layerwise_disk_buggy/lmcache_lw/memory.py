from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

import torch


class MemoryFormat(Enum):
    KV_2LTD = 1
    KV_T2D = 2


@dataclass
class MemoryObj:
    tensor: torch.Tensor
    fmt: MemoryFormat = MemoryFormat.KV_T2D
    ref_count: int = field(default=1)

    def get_size(self) -> int:
        return self.tensor.numel() * self.tensor.element_size()


class PinnedMemoryAllocator:
    """Hands out pinned host tensors for KV chunks."""

    def __init__(self, dtype: torch.dtype):
        self.dtype = dtype

    def allocate(self, shape: torch.Size) -> MemoryObj:
        return MemoryObj(torch.empty(shape, dtype=self.dtype, pin_memory=True))

    def free(self, obj: MemoryObj) -> None:
        obj.ref_count -= 1
