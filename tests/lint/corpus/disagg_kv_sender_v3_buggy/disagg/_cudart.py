# SPDX-License-Identifier: Apache-2.0
import ctypes
import ctypes.util
import functools

from .constants import cudaSuccess


class cudaMemLocation(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("id", ctypes.c_int)]


class cudaMemcpyAttributes(ctypes.Structure):
    _fields_ = [
        ("srcAccessOrder", ctypes.c_int),
        ("srcLocHint", cudaMemLocation),
        ("dstLocHint", cudaMemLocation),
        ("flags", ctypes.c_uint),
    ]


@functools.lru_cache(maxsize=1)
def cudart() -> ctypes.CDLL:
    name = ctypes.util.find_library("cudart") or "libcudart.so"
    lib = ctypes.CDLL(name)
    vp, sz = ctypes.c_void_p, ctypes.c_size_t
    lib.cudaStreamCreateWithFlags.argtypes = [ctypes.POINTER(vp), ctypes.c_uint]
    lib.cudaEventCreateWithFlags.argtypes = [ctypes.POINTER(vp), ctypes.c_uint]
    lib.cudaEventRecord.argtypes = [vp, vp]
    lib.cudaStreamWaitEvent.argtypes = [vp, vp, ctypes.c_uint]
    lib.cudaStreamSynchronize.argtypes = [vp]
    lib.cudaHostAlloc.argtypes = [ctypes.POINTER(vp), sz, ctypes.c_uint]
    lib.cudaMemcpyBatchAsync.argtypes = [
        ctypes.POINTER(vp),  # dsts
        ctypes.POINTER(vp),  # srcs
        ctypes.POINTER(sz),  # sizes
        sz,  # count
        ctypes.POINTER(cudaMemcpyAttributes),  # attrs
        ctypes.POINTER(sz),  # attrsIdxs
        sz,  # numAttrs
        ctypes.POINTER(sz),  # failIdx
        vp,  # stream
    ]
    return lib


def check(err: int, what: str) -> None:
    if err != cudaSuccess:
        raise RuntimeError(f"{what} failed with cudaError {err}")
