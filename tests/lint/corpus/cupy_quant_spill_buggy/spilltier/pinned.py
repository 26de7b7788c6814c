"""A ring of page-sized pinned staging buffers carved out of one pinned allocation."""
import queue
from typing import Tuple

import cupy
import numpy


class PinnedRing:
    def __init__(self, slots: int, page_elems: int, dtype=numpy.float16):
        dtype = numpy.dtype(dtype)
        self._mem = cupy.cuda.alloc_pinned_memory(slots * page_elems * dtype.itemsize)
        self.buffers = numpy.frombuffer(self._mem, dtype, slots * page_elems).reshape(
            slots, page_elems)
        self._free: "queue.Queue[int]" = queue.Queue()
        for i in range(slots):
            self._free.put(i)

    def acquire(self) -> Tuple[int, numpy.ndarray]:
        i = self._free.get()
        return i, self.buffers[i]

    def release(self, i: int) -> None:
        self._free.put(i)
