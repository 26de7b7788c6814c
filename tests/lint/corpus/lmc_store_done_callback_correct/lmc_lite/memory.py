"""Pinned memory objects: one pinned arena, handed out in chunk-sized views."""

import threading
from dataclasses import dataclass
from typing import List, Optional

import torch


@dataclass
class MemoryObjMetadata:
    shape: torch.Size
    dtype: torch.dtype
    address: int
    ref_count: int = 1


class MemoryObj:

    def __init__(self, raw: torch.Tensor, meta: MemoryObjMetadata):
        self.raw = raw
        self.meta = meta

    @property
    def tensor(self) -> torch.Tensor:
        return self.raw.view(self.meta.dtype).view(self.meta.shape)

    @property
    def byte_array(self) -> memoryview:
        return memoryview(self.raw.numpy())


class PinnedMemoryAllocator:

    def __init__(self, size_bytes: int):
        self.arena = torch.empty(size_bytes, dtype=torch.uint8, pin_memory=True)
        self._lock = threading.Lock()
        self._cursor = 0

    def allocate(self, shape, dtype) -> Optional[MemoryObj]:
        nbytes = torch.Size(shape).numel() * torch.empty((), dtype=dtype).element_size()
        with self._lock:
            if self._cursor + nbytes > self.arena.numel():
                return None
            start = self._cursor
            self._cursor += nbytes
        return MemoryObj(self.arena[start:start + nbytes], MemoryObjMetadata(torch.Size(shape), dtype, start))
