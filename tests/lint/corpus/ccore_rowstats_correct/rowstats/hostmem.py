from __future__ import annotations

import ctypes

import numpy as np
from cuda.bindings import driver


def check(err: driver.CUresult) -> None:
    if err != driver.CUresult.CUDA_SUCCESS:
        _, name = driver.cuGetErrorName(err)
        raise RuntimeError(f"CUDA driver error: {name.decode() if name else err}")


class PinnedHostBuffer:
    """Page-locked host allocation (cuMemAllocHost) with numpy views onto it."""

    def __init__(self, nbytes: int) -> None:
        err, ptr = driver.cuMemAllocHost(nbytes)
        check(err)
        self.ptr: int = int(ptr)
        self.nbytes = nbytes

    def view(self, dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
        count = int(np.prod(shape))
        nbytes = count * np.dtype(dtype).itemsize
        if nbytes > self.nbytes:
            raise ValueError(f"view of {nbytes} bytes exceeds buffer of {self.nbytes}")
        raw = (ctypes.c_ubyte * nbytes).from_address(self.ptr)
        return np.frombuffer(raw, dtype=dtype, count=count).reshape(shape)

    def close(self) -> None:
        if self.ptr:
            (err,) = driver.cuMemFreeHost(self.ptr)
            check(err)
            self.ptr = 0
