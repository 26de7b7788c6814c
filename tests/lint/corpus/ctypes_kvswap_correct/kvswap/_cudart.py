"""Minimal ctypes binding of the CUDA runtime calls the swap engine needs."""

from __future__ import annotations

import ctypes
import ctypes.util
import enum

cudaStream_t = ctypes.c_void_p
cudaEvent_t = ctypes.c_void_p

cudaStreamNonBlocking = 0x01
cudaEventDisableTiming = 0x02


class cudaMemcpyKind(enum.IntEnum):
    cudaMemcpyHostToHost = 0
    cudaMemcpyHostToDevice = 1
    cudaMemcpyDeviceToHost = 2
    cudaMemcpyDeviceToDevice = 3
    cudaMemcpyDefault = 4


def _load() -> ctypes.CDLL:
    for name in ("libcudart.so", "libcudart.so.12", ctypes.util.find_library("cudart")):
        if not name:
            continue
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    raise OSError("could not locate libcudart")


_lib = _load()


def _bind(name: str, *argtypes):
    fn = getattr(_lib, name)
    fn.argtypes = list(argtypes)
    fn.restype = ctypes.c_int
    return fn


_lib.cudaGetErrorString.argtypes = [ctypes.c_int]
_lib.cudaGetErrorString.restype = ctypes.c_char_p

_cudaMemcpyAsync = _bind(
    "cudaMemcpyAsync", ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, cudaStream_t
)
_cudaStreamCreateWithFlags = _bind("cudaStreamCreateWithFlags", ctypes.POINTER(cudaStream_t), ctypes.c_uint)
_cudaEventCreateWithFlags = _bind("cudaEventCreateWithFlags", ctypes.POINTER(cudaEvent_t), ctypes.c_uint)
_cudaEventRecord = _bind("cudaEventRecord", cudaEvent_t, cudaStream_t)
_cudaStreamWaitEvent = _bind("cudaStreamWaitEvent", cudaStream_t, cudaEvent_t, ctypes.c_uint)
_cudaStreamSynchronize = _bind("cudaStreamSynchronize", cudaStream_t)


class CudaRTError(RuntimeError):
    pass


def _check(err: int, what: str) -> None:
    if err != 0:
        raise CudaRTError(f"{what} failed: {_lib.cudaGetErrorString(err).decode()} ({err})")


def memcpy_async(dst: int, src: int, nbytes: int, kind: cudaMemcpyKind, stream: int) -> None:
    _check(_cudaMemcpyAsync(dst, src, nbytes, int(kind), stream), "cudaMemcpyAsync")


def stream_create(non_blocking: bool = True) -> int:
    s = cudaStream_t()
    _check(
        _cudaStreamCreateWithFlags(ctypes.byref(s), cudaStreamNonBlocking if non_blocking else 0),
        "cudaStreamCreateWithFlags",
    )
    return s.value


def event_create() -> int:
    ev = cudaEvent_t()
    _check(_cudaEventCreateWithFlags(ctypes.byref(ev), cudaEventDisableTiming), "cudaEventCreateWithFlags")
    return ev.value


def event_record(event: int, stream: int) -> None:
    _check(_cudaEventRecord(event, stream), "cudaEventRecord")


def stream_wait_event(stream: int, event: int) -> None:
    _check(_cudaStreamWaitEvent(stream, event, 0), "cudaStreamWaitEvent")


def stream_synchronize(stream: int) -> None:
    _check(_cudaStreamSynchronize(stream), "cudaStreamSynchronize")
