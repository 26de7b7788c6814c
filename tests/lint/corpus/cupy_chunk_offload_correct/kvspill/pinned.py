import queue

import cupy
import numpy

from kvspill.constants import PINNED_SLAB_BYTES


class PinnedSlabPool:
    """Fixed number of page-locked host slabs handed out as numpy views."""

    def __init__(self, num_slabs):
        self._free = queue.Queue()
        self._mems = []
        for _ in range(num_slabs):
            mem = cupy.cuda.alloc_pinned_memory(PINNED_SLAB_BYTES)
            self._mems.append(mem)
            self._free.put(mem)

    def take(self, shape, dtype):
        mem = self._free.get()
        nbytes = int(numpy.prod(shape)) * numpy.dtype(dtype).itemsize
        if nbytes > PINNED_SLAB_BYTES:
            self._free.put(mem)
            raise ValueError(f"chunk of {nbytes} bytes exceeds slab size")
        view = numpy.frombuffer(mem, dtype, int(numpy.prod(shape))).reshape(shape)
        return mem, view

    def give_back(self, mem):
        self._free.put(mem)
