"""Pinned host memory for chunks: one region carved into MemoryObjs by a bump allocator."""

from dataclasses import dataclass

import torch


@dataclass
class MemoryObjMetadata:
    shape: torch.Size
    dtype: torch.dtype
    address: int
    nbytes: int


class TensorMemoryObj:
    def __init__(self, raw_data: torch.Tensor, metadata: MemoryObjMetadata):
        self.raw_data = raw_data
        self.meta = metadata

    @property
    def tensor(self) -> torch.Tensor:
        return self.raw_data.view(self.meta.dtype).view(self.meta.shape)

    @property
    def byte_array(self):
        # a uint8 numpy view of the pinned bytes (no copy)
        return self.raw_data.numpy()


class PinnedMemoryAllocator:
    def __init__(self, size_bytes: int):
        self.buffer = torch.empty(size_bytes, dtype=torch.uint8, pin_memory=True)
        self.cursor = 0

    def allocate(self, shape, dtype) -> TensorMemoryObj:
        nbytes = torch.Size(shape).numel() * torch.empty((), dtype=dtype).element_size()
        if self.cursor + nbytes > self.buffer.numel():
            self.cursor = 0
        raw = self.buffer.narrow(0, self.cursor, nbytes)
        obj = TensorMemoryObj(raw, MemoryObjMetadata(torch.Size(shape), dtype, self.cursor, nbytes))
        self.cursor += nbytes
        return obj
