from __future__ import annotations

import ctypes
from dataclasses import dataclass
from queue import Queue

import numpy as np
from cuda import cudart


def check_cuda(result):
    err, *values = result
    if err != cudart.cudaError_t.cudaSuccess:
        raise RuntimeError(f"CUDA runtime error: {cudart.cudaGetErrorString(err)[1]!r}")
    if not values:
        return None
    return values[0] if len(values) == 1 else tuple(values)


@dataclass
class StagingBuffer:
    ptr: int
    size: int

    @property
    def host_view(self) -> np.ndarray:
        return np.ctypeslib.as_array((ctypes.c_uint8 * self.size).from_address(self.ptr))


class StagingBufferPool:
    """Pinned, RDMA-registered host buffers the prefill KV is packed into."""

    def __init__(self, num_buffers: int, buffer_size: int, register_fn) -> None:
        self.buffer_size = buffer_size
        self._free: Queue[StagingBuffer] = Queue()
        self._all: list[StagingBuffer] = []
        for _ in range(num_buffers):
            ptr = check_cuda(cudart.cudaHostAlloc(buffer_size, cudart.cudaHostAllocPortable))
            register_fn(ptr, buffer_size)
            buf = StagingBuffer(int(ptr), buffer_size)
            self._all.append(buf)
            self._free.put(buf)

    def acquire(self) -> StagingBuffer:
        return self._free.get()

    def release(self, buf: StagingBuffer) -> None:
        self._free.put(buf)

    def close(self) -> None:
        for buf in self._all:
            check_cuda(cudart.cudaFreeHost(buf.ptr))
