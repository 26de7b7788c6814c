# SPDX-License-Identifier: Apache-2.0
# Standard
from dataclasses import dataclass
from enum import Enum, auto
from typing import List, Optional
import threading

# Third Party
import torch


class MemoryFormat(Enum):
    KV_2TD = auto()
    KV_2LTD = auto()


@dataclass
class MemoryObjMetadata:
    shape: torch.Size
    dtype: torch.dtype
    fmt: MemoryFormat = MemoryFormat.KV_2TD


@dataclass
class MemoryObj:
    tensor: torch.Tensor
    metadata: MemoryObjMetadata
    offset: int = 0

    def get_size(self) -> int:
        return self.tensor.numel() * self.tensor.element_size()


class PinnedMemoryAllocator:
    """Bump allocator over one pinned host arena (reset after a full put)."""

    def __init__(self, size_in_bytes: int):
        self._arena = torch.empty(size_in_bytes, dtype=torch.uint8, pin_memory=True)
        self._lock = threading.Lock()
        self._offset = 0

    def allocate(self, shape: torch.Size, dtype: torch.dtype) -> Optional[MemoryObj]:
        nbytes = shape.numel() * torch.tensor([], dtype=dtype).element_size()
        with self._lock:
            if self._offset + nbytes > self._arena.numel():
                return None
            start = self._offset
            self._offset += (nbytes + 511) // 512 * 512
        view = self._arena[start : start + nbytes].view(dtype).view(shape)
        return MemoryObj(view, MemoryObjMetadata(shape, dtype), start)

    def batched_allocate(
        self, shape: torch.Size, dtype: torch.dtype, n: int
    ) -> List[MemoryObj]:
        objs = [self.allocate(shape, dtype) for _ in range(n)]
        if any(o is None for o in objs):
            raise RuntimeError("Pinned arena exhausted")
        return objs  # type: ignore[return-value]
