"""Growable device and pinned host scratch buffers, in the ChainerMN style."""
import ctypes

import cupy as cp
import numpy as np


class HostPinnedMemory(object):

    def __init__(self):
        self.size = 0
        self.memory = None

    def assign(self, size):
        if size > self.size:
            self.size = size
            self.memory = cp.cuda.alloc_pinned_memory(size)

    def ptr(self, offset=0):
        return ctypes.c_void_p(self.memory.ptr + offset)

    def array(self, count, offset=0, dtype=np.float32):
        return np.frombuffer(self.memory, count=count, offset=offset, dtype=dtype)


class DeviceMemory(object):

    def __init__(self):
        self.size = 0
        self.memory = None

    def assign(self, size):
        if size > self.size:
            self.size = size
            self.memory = cp.cuda.alloc(size)

    def array(self, count, offset=0, dtype=np.float32):
        return cp.ndarray((count,), memptr=self.memory + offset, dtype=dtype)

    def to_host(self, host, size, stream):
        self.memory.copy_to_host_async(host.ptr(), size, stream)
