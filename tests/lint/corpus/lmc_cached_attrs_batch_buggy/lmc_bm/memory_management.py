"""Fixed-size pinned memory objects carved out of one pool (LMCache's chunk-sized MemoryObj)."""

import threading
from dataclasses import dataclass
from typing import List, Optional

import torch


@dataclass
class MemoryObjMetadata:
    shape: torch.Size
    dtype: torch.dtype
    slot: int


class MemoryObj:
    def __init__(self, raw_data: torch.Tensor, metadata: MemoryObjMetadata, allocator: "PinMemoryAllocator"):
        self.raw_data = raw_data
        self.metadata = metadata
        self.allocator = allocator

    @property
    def tensor(self) -> torch.Tensor:
        return self.raw_data.view(self.metadata.dtype).view(self.metadata.shape)

    @property
    def data_ptr(self) -> int:
        return self.raw_data.data_ptr()

    def free(self) -> None:
        self.allocator.free(self)


class PinMemoryAllocator:
    def __init__(self, num_slots: int, slot_shape, dtype: torch.dtype):
        self.slot_shape = torch.Size(slot_shape)
        self.dtype = dtype
        self.slot_bytes = self.slot_shape.numel() * torch.tensor([], dtype=dtype).element_size()
        self.buffer = torch.empty(num_slots * self.slot_bytes, dtype=torch.uint8, pin_memory=True)
        self.free_slots: List[int] = list(range(num_slots))
        self.lock = threading.Lock()

    def allocate(self) -> Optional[MemoryObj]:
        with self.lock:
            if not self.free_slots:
                return None
            slot = self.free_slots.pop()
        raw = self.buffer[slot * self.slot_bytes : (slot + 1) * self.slot_bytes]
        return MemoryObj(raw, MemoryObjMetadata(self.slot_shape, self.dtype, slot), self)

    def free(self, obj: MemoryObj) -> None:
        with self.lock:
            self.free_slots.append(obj.metadata.slot)
