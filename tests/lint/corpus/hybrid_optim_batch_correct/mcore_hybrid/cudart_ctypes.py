# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
"""Minimal ctypes binding to libcudart for the per-tensor fallback path."""
import ctypes
import ctypes.util
from typing import Optional

from .constants import CUDART_LIBRARY_NAMES

_LIB: Optional[ctypes.CDLL] = None


def _cudart() -> ctypes.CDLL:
    global _LIB
    if _LIB is None:
        names = [ctypes.util.find_library("cudart")] + list(CUDART_LIBRARY_NAMES)
        for name in filter(None, names):
            try:
                _LIB = ctypes.CDLL(name)
                break
            except OSError:
                continue
        if _LIB is None:
            raise RuntimeError("could not load libcudart")
        _LIB.cudaMemcpyAsync.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                                         ctypes.c_void_p]
        _LIB.cudaMemcpyAsync.restype = ctypes.c_int
    return _LIB


def memcpy_async(dst: int, src: int, nbytes: int, kind: int, stream_handle: int) -> None:
    rc = _cudart().cudaMemcpyAsync(ctypes.c_void_p(dst), ctypes.c_void_p(src), nbytes, kind,
                                   ctypes.c_void_p(stream_handle))
    if rc != 0:
        raise RuntimeError(f"cudaMemcpyAsync failed with error {rc}")
