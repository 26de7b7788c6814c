"""A pinned-memory allocator in the shape of LMCache's memory management: one large pinned host
buffer is carved into chunk-sized MemoryObj views handed out to the connector."""

import torch


class MemoryObj:
    def __init__(self, tensor, offset, nbytes):
        self.tensor = tensor
        self.offset = offset
        self.nbytes = nbytes


class PinnedMemoryAllocator:
    def __init__(self, size_bytes):
        self.buffer = torch.empty(size_bytes, dtype=torch.uint8, pin_memory=True)
        self.cursor = 0

    def allocate(self, shape, dtype):
        nbytes = torch.Size(shape).numel() * torch.tensor([], dtype=dtype).element_size()
        if self.cursor + nbytes > self.buffer.numel():
            self.cursor = 0
        view = self.buffer[self.cursor : self.cursor + nbytes].view(dtype).view(shape)
        obj = MemoryObj(view, self.cursor, nbytes)
        self.cursor += nbytes
        return obj
