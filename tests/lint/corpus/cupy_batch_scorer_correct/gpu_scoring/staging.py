import numpy

import cupy


class PinnedStaging:
    """A page-locked host array reused for every upload."""

    def __init__(self, shape, dtype=numpy.float32):
        dtype = numpy.dtype(dtype)
        size = int(numpy.prod(shape))
        self._mem = cupy.cuda.alloc_pinned_memory(size * dtype.itemsize)
        self.array = numpy.frombuffer(self._mem, dtype, size).reshape(shape)

    def fill(self, batch: numpy.ndarray) -> numpy.ndarray:
        n = batch.shape[0]
        view = self.array[:n]
        view[...] = batch
        return view
