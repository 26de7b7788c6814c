# Copyright 2024 The HuggingFace Team. All rights reserved.
"""Minimal ctypes bindings to libcudart used by the offload writer."""

import ctypes
import ctypes.util
from typing import Optional

from .constants import CUDA_MEMCPY_DEVICE_TO_HOST

_LIB: Optional[ctypes.CDLL] = None


def _cudart() -> ctypes.CDLL:
    global _LIB
    if _LIB is None:
        lib = ctypes.CDLL(ctypes.util.find_library("cudart") or "libcudart.so")
        lib.cudaMemcpyAsync.argtypes = [
            ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_void_p,
        ]
        lib.cudaMemcpyAsync.restype = ctypes.c_int
        lib.cudaStreamSynchronize.argtypes = [ctypes.c_void_p]
        lib.cudaStreamSynchronize.restype = ctypes.c_int
        _LIB = lib
    return _LIB


def _check(err: int, what: str) -> None:
    if err != 0:
        raise RuntimeError(f"{what} failed with cudaError_t={err}")


def memcpy_d2h_async(dst_ptr: int, src_ptr: int, nbytes: int, stream_handle: int) -> None:
    err = _cudart().cudaMemcpyAsync(
        dst_ptr, src_ptr, nbytes, CUDA_MEMCPY_DEVICE_TO_HOST, stream_handle
    )
    _check(err, "cudaMemcpyAsync")


def stream_synchronize(stream_handle: int) -> None:
    _check(_cudart().cudaStreamSynchronize(stream_handle), "cudaStreamSynchronize")
