from __future__ import annotations

import enum
import threading
from dataclasses import dataclass
from typing import Optional

import torch


class MemoryFormat(enum.Enum):
    UNDEFINED = 0
    # [2, num_layers, num_tokens, hidden_dim]
    KV_2LTD = 1
    BINARY = 2


@dataclass
class MemoryObjMetadata:
    shape: torch.Size
    dtype: Optional[torch.dtype]
    address: int
    phy_size: int
    ref_count: int
    fmt: MemoryFormat = MemoryFormat.UNDEFINED


class MemoryObj:
    def __init__(self, raw_data: torch.Tensor, metadata: MemoryObjMetadata,
                 allocator: "PinnedMemoryAllocator") -> None:
        self.raw_data = raw_data
        self.meta = metadata
        self._allocator = allocator

    @property
    def metadata(self) -> MemoryObjMetadata:
        return self.meta

    @property
    def tensor(self) -> Optional[torch.Tensor]:
        if self.meta.dtype is None:
            return None
        return self.raw_data.view(self.meta.dtype).view(self.meta.shape)

    def ref_count_up(self) -> None:
        self.meta.ref_count += 1

    def ref_count_down(self) -> None:
        self.meta.ref_count -= 1
        if self.meta.ref_count == 0:
            self._allocator.free(self)


class PinnedMemoryAllocator:
    """Bump allocator with a free list over one pinned host arena."""

    def __init__(self, size: int) -> None:
        self.buffer = torch.empty(size, dtype=torch.uint8, pin_memory=True)
        self._free: list[tuple[int, int]] = [(0, size)]
        self._lock = threading.Lock()

    def allocate(self, shape: torch.Size, dtype: torch.dtype,
                 fmt: MemoryFormat = MemoryFormat.KV_2LTD) -> Optional[MemoryObj]:
        nbytes = shape.numel() * torch.tensor([], dtype=dtype).element_size()
        with self._lock:
            for i, (addr, size) in enumerate(self._free):
                if size >= nbytes:
                    self._free[i] = (addr + nbytes, size - nbytes)
                    break
            else:
                return None
        raw = self.buffer[addr:addr + nbytes]
        return MemoryObj(raw, MemoryObjMetadata(shape, dtype, addr, nbytes, 1, fmt), self)

    def free(self, obj: MemoryObj) -> None:
        with self._lock:
            self._free.append((obj.meta.address, obj.meta.phy_size))
