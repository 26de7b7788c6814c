import numpy as np

import cupy

from .constants import PINNED_POOL_LIMIT

_pinned_pool = cupy.cuda.PinnedMemoryPool()
cupy.cuda.set_pinned_memory_allocator(_pinned_pool.malloc)


def empty_pinned(shape, dtype) -> np.ndarray:
    """Page-locked numpy array backed by the module's pinned memory pool."""
    dtype = np.dtype(dtype)
    count = int(np.prod(shape))
    nbytes = count * dtype.itemsize
    if nbytes > PINNED_POOL_LIMIT:
        raise ValueError(f"pinned request of {nbytes} bytes exceeds the pool limit")
    mem = cupy.cuda.alloc_pinned_memory(nbytes)
    return np.frombuffer(mem, dtype, count).reshape(shape)
