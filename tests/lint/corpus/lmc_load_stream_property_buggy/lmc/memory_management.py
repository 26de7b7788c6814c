"""Pinned memory objects handed out by a bump allocator over one pinned arena."""

from dataclasses import dataclass, field
from typing import Optional, Tuple

import torch


@dataclass
class MemoryObj:
    raw_data: torch.Tensor
    shape: Tuple[int, ...]
    dtype: torch.dtype
    ref_count: int = field(default=1)

    @property
    def tensor(self) -> torch.Tensor:
        return self.raw_data.view(self.dtype).view(self.shape)


class PinMemoryAllocator:
    def __init__(self, size_bytes: int):
        self.arena = torch.empty(size_bytes, dtype=torch.uint8, pin_memory=True)
        self.offset = 0

    def allocate(self, shape, dtype: torch.dtype) -> Optional[MemoryObj]:
        nbytes = int(torch.Size(shape).numel()) * torch.finfo(dtype).bits // 8
        if self.offset + nbytes > self.arena.numel():
            return None
        raw = self.arena[self.offset : self.offset + nbytes]
        self.offset += nbytes
        return MemoryObj(raw, tuple(shape), dtype)
