"""Minimal ctypes bindings for the parts of the CUDA runtime this package needs."""
from __future__ import annotations

import ctypes
import ctypes.util
import os

_LIB_NAME = os.environ.get("CUDART_LIB") or ctypes.util.find_library("cudart") or "libcudart.so"
_lib = ctypes.CDLL(_LIB_NAME)

cudaStream_t = ctypes.c_void_p
cudaEvent_t = ctypes.c_void_p

_lib.cudaMemcpyAsync.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, cudaStream_t]
_lib.cudaStreamCreateWithFlags.argtypes = [ctypes.POINTER(cudaStream_t), ctypes.c_uint]
_lib.cudaEventCreateWithFlags.argtypes = [ctypes.POINTER(cudaEvent_t), ctypes.c_uint]
_lib.cudaEventRecord.argtypes = [cudaEvent_t, cudaStream_t]
_lib.cudaStreamWaitEvent.argtypes = [cudaStream_t, cudaEvent_t, ctypes.c_uint]
_lib.cudaEventSynchronize.argtypes = [cudaEvent_t]
_lib.cudaHostAlloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t, ctypes.c_uint]
_lib.cudaGetErrorString.restype = ctypes.c_char_p


class CudaError(RuntimeError):
    pass


def check(status: int) -> None:
    if status != 0:
        raise CudaError(_lib.cudaGetErrorString(status).decode())


def stream_create(flags: int) -> cudaStream_t:
    handle = cudaStream_t()
    check(_lib.cudaStreamCreateWithFlags(ctypes.byref(handle), flags))
    return handle


def event_create(flags: int) -> cudaEvent_t:
    handle = cudaEvent_t()
    check(_lib.cudaEventCreateWithFlags(ctypes.byref(handle), flags))
    return handle


def host_alloc(nbytes: int, flags: int) -> ctypes.c_void_p:
    ptr = ctypes.c_void_p()
    check(_lib.cudaHostAlloc(ctypes.byref(ptr), nbytes, flags))
    return ptr


def memcpy_async(dst, src, nbytes: int, kind: int, stream: cudaStream_t) -> None:
    check(_lib.cudaMemcpyAsync(dst, src, nbytes, kind, stream))


def event_record(event: cudaEvent_t, stream: cudaStream_t) -> None:
    check(_lib.cudaEventRecord(event, stream))


def stream_wait_event(stream: cudaStream_t, event: cudaEvent_t) -> None:
    check(_lib.cudaStreamWaitEvent(stream, event, 0))


def event_synchronize(event: cudaEvent_t) -> None:
    check(_lib.cudaEventSynchronize(event))
