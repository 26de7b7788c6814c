"""Pinned host memory handed out in chunk-sized objects."""

import torch


class MemoryObj:
    def __init__(self, tensor, key=None):
        self.tensor = tensor
        self.key = key


class PinnedChunkAllocator:
    def __init__(self, num_chunks, chunk_tokens, token_numel, dtype=torch.bfloat16):
        self.buffer = torch.empty(num_chunks, chunk_tokens, token_numel, dtype=dtype, pin_memory=True)
        self.free = list(range(num_chunks))

    def allocate(self):
        if not self.free:
            return None
        return MemoryObj(self.buffer[self.free.pop()])

    def release(self, obj):
        self.free.append(obj.tensor.storage_offset() // obj.tensor[0].numel())
