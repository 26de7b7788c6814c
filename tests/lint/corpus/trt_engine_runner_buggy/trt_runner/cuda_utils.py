"""Thin helpers over cuda-python's runtime bindings."""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Any

import numpy as np
from cuda import cudart


def check(result: Any) -> Any:
    """Unpack a cuda-python ``(err, *values)`` tuple, raising on failure."""
    if isinstance(result, tuple):
        err, *rest = result
    else:
        err, rest = result, []
    if err != cudart.cudaError_t.cudaSuccess:
        _, msg = cudart.cudaGetErrorString(err)
        raise RuntimeError(f"CUDA runtime error {int(err)}: {msg.decode() if isinstance(msg, bytes) else msg}")
    if not rest:
        return None
    return rest[0] if len(rest) == 1 else tuple(rest)


@dataclass
class HostDeviceMem:
    """A pinned host buffer paired with a device buffer of the same size."""

    name: str
    shape: tuple[int, ...]
    dtype: np.dtype
    host_ptr: int
    device_ptr: int

    @classmethod
    def allocate(cls, name: str, shape: tuple[int, ...], dtype: np.dtype) -> "HostDeviceMem":
        nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
        host_ptr = check(cudart.cudaMallocHost(nbytes))
        device_ptr = check(cudart.cudaMalloc(nbytes))
        return cls(name, tuple(shape), np.dtype(dtype), host_ptr, device_ptr)

    @property
    def nbytes(self) -> int:
        return int(np.prod(self.shape)) * self.dtype.itemsize

    @property
    def host(self) -> np.ndarray:
        ctype = np.ctypeslib.as_ctypes_type(self.dtype)
        raw = ctypes.cast(self.host_ptr, ctypes.POINTER(ctype))
        return np.ctypeslib.as_array(raw, (int(np.prod(self.shape)),)).reshape(self.shape)

    def free(self) -> None:
        check(cudart.cudaFree(self.device_ptr))
        check(cudart.cudaFreeHost(self.host_ptr))
