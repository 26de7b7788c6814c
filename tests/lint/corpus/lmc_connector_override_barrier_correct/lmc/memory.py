"""Pinned host memory objects handed out by a bump allocator, in the shape of LMCache's
MemoryObj / PinMemoryAllocator (KV_2LTD format: [2, num_layers, num_tokens, hidden])."""

import threading
from dataclasses import dataclass
from typing import Optional

import torch


@dataclass
class MemoryObjMetadata:
    shape: torch.Size
    dtype: torch.dtype
    address: int


class MemoryObj:
    def __init__(self, raw: torch.Tensor, metadata: MemoryObjMetadata):
        self.raw = raw
        self.metadata = metadata

    @property
    def tensor(self) -> torch.Tensor:
        return self.raw.view(self.metadata.dtype).view(self.metadata.shape)


class PinMemoryAllocator:
    def __init__(self, size: int):
        self.buffer = torch.empty(size, dtype=torch.uint8, pin_memory=True)
        self.offset = 0
        self.lock = threading.Lock()

    def allocate(self, shape: torch.Size, dtype: torch.dtype) -> Optional[MemoryObj]:
        nbytes = shape.numel() * dtype.itemsize
        with self.lock:
            if self.offset + nbytes > self.buffer.numel():
                return None
            raw = self.buffer[self.offset:self.offset + nbytes]
            meta = MemoryObjMetadata(shape, dtype, self.offset)
            self.offset += nbytes
        return MemoryObj(raw, meta)
