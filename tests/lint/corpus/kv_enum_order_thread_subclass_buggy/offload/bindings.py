"""ctypes view of the CUDA runtime's batched copy, enums spelt as IntEnum members."""

import ctypes
import enum


class SrcAccessOrder(enum.IntEnum):
    INVALID = 0
    STREAM = 1
    DURING_API_CALL = 2
    ANY = 3


class MemcpyAttributes(ctypes.Structure):
    _fields_ = [("srcAccessOrder", ctypes.c_int), ("flags", ctypes.c_uint)]


_cudart = ctypes.CDLL("libcudart.so")


def batch_copy(dsts, srcs, sizes, attrs, stream_handle):
    n = len(sizes)
    failed = ctypes.c_size_t(0)
    # expect: KVG002
    err = _cudart.cudaMemcpyBatchAsync(
        (ctypes.c_void_p * n)(*dsts),
        (ctypes.c_void_p * n)(*srcs),
        (ctypes.c_size_t * n)(*sizes),
        ctypes.c_size_t(n),
        ctypes.byref(attrs),
        (ctypes.c_size_t * 1)(0),
        ctypes.c_size_t(1),
        ctypes.byref(failed),
        ctypes.c_void_p(stream_handle),
    )
    if err != 0:
        raise RuntimeError(f"cudaMemcpyBatchAsync failed ({err}) at copy {failed.value}")
