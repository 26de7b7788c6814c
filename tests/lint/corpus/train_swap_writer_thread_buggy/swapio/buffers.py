"""Pinned swap buffers in the shape of DeepSpeed's SwapBufferManager: a fixed pool of page-locked
host tensors from ``get_accelerator().pin_memory``, handed out per state key and given back after
the writer thread has written them out."""

import threading

import torch
from deepspeed.accelerator import get_accelerator


class PinnedBufferPool:
    def __init__(self, count, numel, dtype=torch.float32):
        self.buffers = [
            get_accelerator().pin_memory(torch.zeros(numel, dtype=dtype, device="cpu")) for _ in range(count)
        ]
        self.free = list(range(count))
        self.lock = threading.Lock()
        self.cond = threading.Condition(self.lock)

    def acquire(self):
        with self.cond:
            while not self.free:
                self.cond.wait()
            return self.buffers[self.free.pop()]

    def release(self, buffer):
        with self.cond:
            for index, candidate in enumerate(self.buffers):
                if candidate is buffer:
                    self.free.append(index)
            self.cond.notify()
