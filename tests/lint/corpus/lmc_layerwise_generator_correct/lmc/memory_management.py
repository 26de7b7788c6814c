"""Pinned memory objects in the shape of LMCache's MemoryObj / PinMemoryAllocator: one pinned
arena, handed out as views with a small metadata record."""

from dataclasses import dataclass
from typing import Optional, Tuple

import torch


@dataclass
class MemoryObjMetadata:
    shape: Tuple[int, ...]
    dtype: torch.dtype
    address: int


class MemoryObj:
    def __init__(self, raw: torch.Tensor, metadata: MemoryObjMetadata):
        self.raw = raw
        self.metadata = metadata
        self.ref_count = 1

    @property
    def tensor(self) -> torch.Tensor:
        return self.raw.view(self.metadata.dtype).view(self.metadata.shape)

    def ref_count_down(self) -> None:
        self.ref_count -= 1


class PinMemoryAllocator:
    def __init__(self, size_bytes: int):
        self.buffer = torch.empty(size_bytes, dtype=torch.uint8, pin_memory=True)
        self.cursor = 0

    def allocate(self, shape, dtype: torch.dtype) -> Optional[MemoryObj]:
        nbytes = torch.Size(shape).numel() * torch.tensor([], dtype=dtype).element_size()
        if self.cursor + nbytes > self.buffer.numel():
            return None
        raw = self.buffer[self.cursor : self.cursor + nbytes]
        meta = MemoryObjMetadata(tuple(shape), dtype, self.cursor)
        self.cursor += nbytes
        return MemoryObj(raw, meta)
