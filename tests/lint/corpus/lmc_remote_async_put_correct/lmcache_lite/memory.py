"""Memory objects: views of one pinned arena, with the byte view the remote connectors send."""

from typing import Optional

import torch


class MemoryObj:
    def __init__(self, raw_data: torch.Tensor, shape, dtype):
        self.raw_data = raw_data
        self.shape = tuple(shape)
        self.dtype = dtype

    @property
    def tensor(self) -> torch.Tensor:
        return self.raw_data.view(self.dtype).view(self.shape)

    @property
    def byte_array(self) -> memoryview:
        return memoryview(self.raw_data.numpy())

    def get_size(self) -> int:
        return self.raw_data.numel()


class PinMemoryAllocator:
    def __init__(self, size: int):
        self.buffer = torch.empty(size, dtype=torch.uint8, pin_memory=True)
        self.offset = 0

    def allocate(self, shape, dtype) -> Optional[MemoryObj]:
        nbytes = torch.Size(shape).numel() * torch.empty((), dtype=dtype).element_size()
        if self.offset + nbytes > self.buffer.numel():
            return None
        raw = self.buffer[self.offset : self.offset + nbytes]
        self.offset += nbytes
        return MemoryObj(raw, shape, dtype)
