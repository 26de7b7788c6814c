"""Pinned host blocks carved out of one cudaMallocHost allocation."""
import ctypes
import queue

import numpy as np
from cuda.bindings import runtime as cudart

from .cudart_util import check


class HostBlockPool:
    def __init__(self, num_blocks, block_bytes):
        self.block_bytes = block_bytes
        self.base = check(cudart.cudaMallocHost(num_blocks * block_bytes))
        self._free = queue.Queue()
        for i in range(num_blocks):
            self._free.put(i)

    def acquire(self):
        return self._free.get()

    def release(self, slot):
        self._free.put(slot)

    def ptr(self, slot):
        return self.base + slot * self.block_bytes

    def view(self, slot):
        raw = (ctypes.c_ubyte * self.block_bytes).from_address(self.ptr(slot))
        return np.frombuffer(raw, dtype=np.uint8)
