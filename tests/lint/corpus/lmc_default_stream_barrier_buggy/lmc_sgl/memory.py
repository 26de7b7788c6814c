"""Pinned memory objects for KV chunks, carved out of one pinned arena."""

import torch


class MemoryObj:
    def __init__(self, tensor, key=None):
        self.tensor = tensor
        self.key = key

    @property
    def byte_array(self):
        return self.tensor.view(torch.uint8).numpy()


class PinnedArena:
    def __init__(self, nbytes):
        self.buffer = torch.empty(nbytes, dtype=torch.uint8, pin_memory=True)
        self.offset = 0

    def allocate(self, shape, dtype):
        nbytes = torch.Size(shape).numel() * torch.tensor([], dtype=dtype).element_size()
        if self.offset + nbytes > self.buffer.numel():
            self.offset = 0
        raw = self.buffer[self.offset:self.offset + nbytes]
        self.offset += nbytes
        return MemoryObj(raw.view(dtype).view(shape))
