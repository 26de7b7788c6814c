"""Minimal ctypes bindings for the CUDA runtime's batched memcpy (CUDA 12.8 signature), in the
style of vLLM's ctypes CUDA wrappers: enums as IntEnum, structs as ctypes.Structure."""

import ctypes
import enum
from typing import Sequence


class cudaMemcpySrcAccessOrder(enum.IntEnum):
    Invalid = 0
    Stream = 1
    DuringApiCall = 2
    Any = 3


class cudaMemLocationType(enum.IntEnum):
    Invalid = 0
    Device = 1
    Host = 2


class cudaMemLocation(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("id", ctypes.c_int)]


class cudaMemcpyAttributes(ctypes.Structure):
    _fields_ = [
        ("srcAccessOrder", ctypes.c_int),
        ("srcLocHint", cudaMemLocation),
        ("dstLocHint", cudaMemLocation),
        ("flags", ctypes.c_uint),
    ]


_lib = ctypes.CDLL("libcudart.so.12")
_lib.cudaMemcpyBatchAsync.restype = ctypes.c_int
_lib.cudaMemcpyBatchAsync.argtypes = [
    ctypes.POINTER(ctypes.c_void_p),
    ctypes.POINTER(ctypes.c_void_p),
    ctypes.POINTER(ctypes.c_size_t),
    ctypes.c_size_t,
    ctypes.POINTER(cudaMemcpyAttributes),
    ctypes.POINTER(ctypes.c_size_t),
    ctypes.c_size_t,
    ctypes.POINTER(ctypes.c_size_t),
    ctypes.c_void_p,
]


def memcpy_batch_async(dsts: Sequence[int], srcs: Sequence[int], sizes: Sequence[int],
                       attrs: cudaMemcpyAttributes, stream_handle: int) -> None:
    n = len(sizes)
    fail_idx = ctypes.c_size_t(0)
    # expect: KVG002
    err = _lib.cudaMemcpyBatchAsync(
        (ctypes.c_void_p * n)(*dsts),
        (ctypes.c_void_p * n)(*srcs),
        (ctypes.c_size_t * n)(*sizes),
        n,
        ctypes.byref(attrs),
        (ctypes.c_size_t * 1)(0),
        1,
        ctypes.byref(fail_idx),
        ctypes.c_void_p(stream_handle),
    )
    if err != 0:
        raise RuntimeError(f"cudaMemcpyBatchAsync failed ({err}) at copy {fail_idx.value}")
