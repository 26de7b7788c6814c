import cupy
import cupyx
import numpy as np

_pinned_pool = cupy.cuda.PinnedMemoryPool()
cupy.cuda.set_pinned_memory_allocator(_pinned_pool.malloc)


def pinned_empty(shape, dtype) -> np.ndarray:
    return cupyx.empty_pinned(shape, dtype=dtype)


class StreamSet:
    """Upload, compute and download each get their own non-blocking stream."""

    def __init__(self, device_id: int = 0):
        with cupy.cuda.Device(device_id):
            self.upload = cupy.cuda.Stream(non_blocking=True)
            self.compute = cupy.cuda.Stream(non_blocking=True)
            self.download = cupy.cuda.Stream(non_blocking=True)
