"""Pinned swap buffers handed out from a fixed pool, as ZeRO-Infinity's swapper keeps them."""

import torch
from deepspeed.accelerator import get_accelerator


class SwapBuffer:
    def __init__(self, numel, dtype):
        self.buffer = get_accelerator().pin_memory(torch.empty(numel, dtype=dtype))
        self.offset = 0
        self.path = None

    def reset(self):
        self.offset = 0
        self.path = None

    def allocate(self, numel):
        view = self.buffer.narrow(0, self.offset, numel)
        self.offset += numel
        return view

    def used(self):
        return self.buffer.narrow(0, 0, self.offset)


class SwapBufferPool:
    def __init__(self, count, numel, dtype=torch.float32):
        self.buffers = [SwapBuffer(numel, dtype) for _ in range(count)]
        self.free = list(range(count))

    def get(self):
        idx = self.free.pop(0)
        buf = self.buffers[idx]
        buf.reset()
        return idx, buf

    def release(self, idx):
        self.buffers[idx].reset()
        self.free.append(idx)
