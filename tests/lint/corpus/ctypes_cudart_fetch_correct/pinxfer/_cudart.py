"""ctypes bindings for the handful of CUDA runtime entry points we need."""

from __future__ import annotations

import ctypes
import ctypes.util
import enum
import os
from ctypes import POINTER, c_char_p, c_int, c_size_t, c_uint, c_void_p

cudaSuccess = 0
cudaStreamNonBlocking = 0x01
cudaEventDisableTiming = 0x02
cudaHostAllocDefault = 0x00


class MemcpyKind(enum.IntEnum):
    HostToHost = 0
    HostToDevice = 1
    DeviceToHost = 2
    DeviceToDevice = 3
    Default = 4


class CudaError(RuntimeError):
    pass


def _load() -> ctypes.CDLL:
    name = os.environ.get("PINXFER_CUDART") or ctypes.util.find_library("cudart") or "libcudart.so"
    lib = ctypes.CDLL(name)
    sigs = {
        "cudaMemcpyAsync": ([c_void_p, c_void_p, c_size_t, c_int, c_void_p], c_int),
        "cudaStreamCreateWithFlags": ([POINTER(c_void_p), c_uint], c_int),
        "cudaStreamDestroy": ([c_void_p], c_int),
        "cudaStreamSynchronize": ([c_void_p], c_int),
        "cudaStreamWaitEvent": ([c_void_p, c_void_p, c_uint], c_int),
        "cudaEventCreateWithFlags": ([POINTER(c_void_p), c_uint], c_int),
        "cudaEventRecord": ([c_void_p, c_void_p], c_int),
        "cudaEventSynchronize": ([c_void_p], c_int),
        "cudaEventDestroy": ([c_void_p], c_int),
        "cudaHostAlloc": ([POINTER(c_void_p), c_size_t, c_uint], c_int),
        "cudaFreeHost": ([c_void_p], c_int),
        "cudaGetErrorString": ([c_int], c_char_p),
    }
    for fn, (argtypes, restype) in sigs.items():
        f = getattr(lib, fn)
        f.argtypes = argtypes
        f.restype = restype
    return lib


lib = _load()


def check(rc: int, what: str) -> None:
    if rc != cudaSuccess:
        raise CudaError(f"{what} failed: {lib.cudaGetErrorString(rc).decode()} ({rc})")


def create_stream() -> c_void_p:
    s = c_void_p()
    check(lib.cudaStreamCreateWithFlags(ctypes.byref(s), cudaStreamNonBlocking), "cudaStreamCreateWithFlags")
    return s


def create_event() -> c_void_p:
    ev = c_void_p()
    check(lib.cudaEventCreateWithFlags(ctypes.byref(ev), cudaEventDisableTiming), "cudaEventCreateWithFlags")
    return ev
