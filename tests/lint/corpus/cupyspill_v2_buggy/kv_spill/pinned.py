import threading

import cupy
import numpy


class PinnedHostPool:
    """numpy views over page-locked memory from a dedicated cupy pool."""

    def __init__(self, limit_bytes: int):
        self._pool = cupy.cuda.PinnedMemoryPool()
        self._limit = limit_bytes
        self._used = 0
        self._lock = threading.Lock()

    def empty(self, shape, dtype) -> numpy.ndarray:
        dtype = numpy.dtype(dtype)
        size = int(numpy.prod(shape))
        nbytes = size * dtype.itemsize
        with self._lock:
            if self._used + nbytes > self._limit:
                raise MemoryError(f"pinned spill pool exhausted ({self._used}/{self._limit} bytes)")
            self._used += nbytes
        mem = self._pool.malloc(nbytes)
        return numpy.frombuffer(mem, dtype, size).reshape(shape)

    def give_back(self, array: numpy.ndarray) -> None:
        with self._lock:
            self._used -= array.nbytes
