"""Process-wide CuPy allocators for the correlator.

Device arrays come from a dedicated MemoryPool (so the dump path never competes with the
capture path for cudaMalloc), and host staging buffers from a PinnedMemoryPool, the way the
CuPy stream examples set them up."""

import numpy as np
import cupy

_device_pool = cupy.cuda.MemoryPool()
_pinned_pool = cupy.cuda.PinnedMemoryPool()


def install_pools() -> None:
    cupy.cuda.set_allocator(_device_pool.malloc)
    cupy.cuda.set_pinned_memory_allocator(_pinned_pool.malloc)


def pinned_empty(shape, dtype) -> np.ndarray:
    """A numpy array whose storage is page-locked memory from the pinned pool."""
    dtype = np.dtype(dtype)
    count = int(np.prod(shape))
    mem = cupy.cuda.alloc_pinned_memory(count * dtype.itemsize)
    return np.frombuffer(mem, dtype, count).reshape(shape)


def pool_stats() -> dict:
    return {
        "device_used": _device_pool.used_bytes(),
        "device_total": _device_pool.total_bytes(),
        "pinned_free_blocks": _pinned_pool.n_free_blocks(),
    }
