"""Pinned CPU allocator handing out MemoryObj records over one big buffer."""

import threading
from dataclasses import dataclass
from typing import List, Optional

import torch


@dataclass
class MemoryObjMetadata:
    shape: torch.Size
    dtype: torch.dtype
    address: int  # byte offset inside the allocator's buffer
    phy_size: int
    ref_count: int = 1


class TensorMemoryObj:
    def __init__(self, raw_data: torch.Tensor, metadata: MemoryObjMetadata, allocator: "PinMemoryAllocator"):
        self.raw_data = raw_data
        self.metadata = metadata
        self._allocator = allocator

    @property
    def tensor(self) -> torch.Tensor:
        return self.raw_data.view(self.metadata.dtype).view(self.metadata.shape)

    @property
    def byte_array(self) -> memoryview:
        return memoryview(self.raw_data.numpy())

    def ref_count_up(self) -> None:
        self.metadata.ref_count += 1

    def ref_count_down(self) -> None:
        self.metadata.ref_count -= 1
        if self.metadata.ref_count == 0:
            self._allocator.free(self)


class PinMemoryAllocator:
    def __init__(self, total_bytes: int, slab_bytes: int):
        self.buffer = torch.empty(total_bytes, dtype=torch.uint8, pin_memory=True)
        self.slab_bytes = slab_bytes
        self._free: List[int] = list(range(0, total_bytes - slab_bytes + 1, slab_bytes))
        self._lock = threading.Lock()

    def allocate(self, shape: torch.Size, dtype: torch.dtype) -> Optional[TensorMemoryObj]:
        nbytes = torch.Size(shape).numel() * torch.empty((), dtype=dtype).element_size()
        assert nbytes <= self.slab_bytes, (nbytes, self.slab_bytes)
        with self._lock:
            if not self._free:
                return None
            offset = self._free.pop()
        raw = self.buffer[offset : offset + nbytes]
        return TensorMemoryObj(raw, MemoryObjMetadata(torch.Size(shape), dtype, offset, nbytes), self)

    def free(self, obj: TensorMemoryObj) -> None:
        with self._lock:
            self._free.append(obj.metadata.address)
