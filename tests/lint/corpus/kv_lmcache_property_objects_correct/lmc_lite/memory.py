"""Pinned host memory objects handed out by a bump allocator (LMCache MemoryObj shape)."""

import math

import torch


class MemoryObj:
    def __init__(self, buffer, offset, shape, dtype):
        self._buffer = buffer
        self._offset = offset
        self.shape = shape
        self.dtype = dtype

    @property
    def nbytes(self):
        return math.prod(self.shape) * torch.empty((), dtype=self.dtype).element_size()

    @property
    def tensor(self):
        raw = self._buffer[self._offset : self._offset + self.nbytes]
        return raw.view(self.dtype).view(self.shape)


class PinnedAllocator:
    def __init__(self, capacity_bytes):
        self.buffer = torch.empty(capacity_bytes, dtype=torch.uint8, pin_memory=True)
        self.cursor = 0

    def allocate(self, shape, dtype):
        obj = MemoryObj(self.buffer, self.cursor, shape, dtype)
        self.cursor = (self.cursor + obj.nbytes + 511) // 512 * 512
        return obj
