from __future__ import annotations

import threading
from dataclasses import dataclass
from enum import Enum, auto
from typing import List, Optional

import torch


class MemoryFormat(Enum):
    UNDEFINED = auto()
    # [2, num_layers, num_tokens, hidden_dim]
    KV_2LTD = auto()


@dataclass
class MemoryObjMetadata:
    shape: torch.Size
    dtype: torch.dtype
    address: int
    phy_size: int
    fmt: MemoryFormat = MemoryFormat.KV_2LTD
    ref_count: int = 1


class MemoryObj:
    def __init__(self, raw_data: torch.Tensor, metadata: MemoryObjMetadata) -> None:
        self.raw_data = raw_data
        self.metadata = metadata

    @property
    def tensor(self) -> torch.Tensor:
        return self.raw_data.view(self.metadata.dtype).view(self.metadata.shape)

    @property
    def data_ptr(self) -> int:
        return self.raw_data.data_ptr()

    def get_size(self) -> int:
        return self.metadata.phy_size


class PinnedMemoryAllocator:
    """Bump/free-list allocator over one pinned host region."""

    ALIGN = 4096

    def __init__(self, size: int) -> None:
        self.buffer = torch.empty(size, dtype=torch.uint8, pin_memory=True)
        self._free: List[tuple[int, int]] = [(0, size)]
        self._lock = threading.Lock()

    def allocate(self, shape: torch.Size, dtype: torch.dtype) -> Optional[MemoryObj]:
        nbytes = torch.Size(shape).numel() * torch.empty((), dtype=dtype).element_size()
        aligned = -(-nbytes // self.ALIGN) * self.ALIGN
        with self._lock:
            for i, (start, length) in enumerate(self._free):
                if length >= aligned:
                    self._free[i] = (start + aligned, length - aligned)
                    raw = self.buffer[start : start + nbytes]
                    return MemoryObj(raw, MemoryObjMetadata(torch.Size(shape), dtype, start, aligned))
        return None

    def free(self, obj: MemoryObj) -> None:
        with self._lock:
            self._free.append((obj.metadata.address, obj.metadata.phy_size))
