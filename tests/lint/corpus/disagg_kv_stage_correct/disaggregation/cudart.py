"""Minimal ctypes bindings to the CUDA runtime used by the cache transceiver."""

from __future__ import annotations

import ctypes
import ctypes.util
import functools

from disaggregation.config import CUDA_EVENT_DISABLE_TIMING, CUDA_STREAM_NON_BLOCKING


@functools.lru_cache(maxsize=1)
def _lib() -> ctypes.CDLL:
    lib = ctypes.CDLL(ctypes.util.find_library("cudart") or "libcudart.so")
    lib.cudaMemcpyAsync.argtypes = [
        ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_void_p,
    ]
    lib.cudaStreamWaitEvent.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint]
    lib.cudaEventRecord.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    lib.cudaStreamSynchronize.argtypes = [ctypes.c_void_p]
    lib.cudaEventDestroy.argtypes = [ctypes.c_void_p]
    lib.cudaGetErrorString.restype = ctypes.c_char_p
    return lib


def _check(err: int) -> None:
    if err != 0:
        msg = _lib().cudaGetErrorString(err).decode()
        raise RuntimeError(f"CUDA runtime error {err}: {msg}")


def stream_create() -> int:
    handle = ctypes.c_void_p()
    _check(_lib().cudaStreamCreateWithFlags(ctypes.byref(handle), CUDA_STREAM_NON_BLOCKING))
    return handle.value


def event_create() -> int:
    handle = ctypes.c_void_p()
    _check(_lib().cudaEventCreateWithFlags(ctypes.byref(handle), CUDA_EVENT_DISABLE_TIMING))
    return handle.value


def event_record(event: int, stream: int) -> None:
    _check(_lib().cudaEventRecord(event, stream))


def event_destroy(event: int) -> None:
    _check(_lib().cudaEventDestroy(event))


def stream_wait_event(stream: int, event: int) -> None:
    _check(_lib().cudaStreamWaitEvent(stream, event, 0))


def stream_synchronize(stream: int) -> None:
    _check(_lib().cudaStreamSynchronize(stream))


def memcpy_async(dst: int, src: int, count: int, kind: int, stream: int) -> None:
    _check(_lib().cudaMemcpyAsync(dst, src, count, kind, stream))
