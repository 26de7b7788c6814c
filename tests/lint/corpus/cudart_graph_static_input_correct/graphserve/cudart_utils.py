"""cuda-python runtime helpers."""
import ctypes

import numpy as np
from cuda.bindings import runtime as cudart


def ok(result):
    """Unwrap ``(err, *values)`` as returned by every cuda-python call."""
    err, *values = result
    if err != cudart.cudaError_t.cudaSuccess:
        _, name = cudart.cudaGetErrorName(err)
        raise RuntimeError(f"CUDA runtime error {name.decode()}")
    if not values:
        return None
    return values[0] if len(values) == 1 else tuple(values)


def nonblocking_stream():
    return ok(cudart.cudaStreamCreateWithFlags(cudart.cudaStreamNonBlocking))


def sync_event():
    return ok(cudart.cudaEventCreateWithFlags(cudart.cudaEventDisableTiming))


def pinned_empty(shape, dtype) -> np.ndarray:
    """A numpy array over page-locked memory from cudaMallocHost."""
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape)) * dtype.itemsize
    ptr = ok(cudart.cudaMallocHost(nbytes))
    raw = (ctypes.c_uint8 * nbytes).from_address(int(ptr))
    return np.frombuffer(raw, dtype=dtype).reshape(shape)
