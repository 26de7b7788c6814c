"""Minimal ctypes bindings to the CUDA runtime used for host-side bookkeeping copies."""
import ctypes
import ctypes.util
from typing import Optional

cudaMemcpyHostToDevice = 1
cudaMemcpyDeviceToHost = 2
cudaStreamNonBlocking = 0x01
cudaEventDisableTiming = 0x02

_lib: Optional[ctypes.CDLL] = None


def _cudart() -> ctypes.CDLL:
    global _lib
    if _lib is None:
        _lib = ctypes.CDLL(ctypes.util.find_library("cudart") or "libcudart.so")
        _lib.cudaMemcpyAsync.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                                         ctypes.c_void_p]
        _lib.cudaStreamCreateWithFlags.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_uint]
        _lib.cudaEventCreateWithFlags.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_uint]
        _lib.cudaEventRecord.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        _lib.cudaStreamWaitEvent.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint]
        _lib.cudaStreamSynchronize.argtypes = [ctypes.c_void_p]
        _lib.cudaSetDevice.argtypes = [ctypes.c_int]
    return _lib


def _check(status: int, what: str) -> None:
    if status != 0:
        raise RuntimeError(f"{what} failed with cudaError {status}")


def set_device(index: int) -> None:
    _check(_cudart().cudaSetDevice(index), "cudaSetDevice")


def stream_create() -> int:
    handle = ctypes.c_void_p()
    _check(_cudart().cudaStreamCreateWithFlags(ctypes.byref(handle), cudaStreamNonBlocking), "cudaStreamCreate")
    return handle.value


def event_create() -> int:
    handle = ctypes.c_void_p()
    _check(_cudart().cudaEventCreateWithFlags(ctypes.byref(handle), cudaEventDisableTiming), "cudaEventCreate")
    return handle.value


def event_record(event: int, stream: int) -> None:
    _check(_cudart().cudaEventRecord(event, stream), "cudaEventRecord")


def stream_wait_event(stream: int, event: int) -> None:
    _check(_cudart().cudaStreamWaitEvent(stream, event, 0), "cudaStreamWaitEvent")


def memcpy_async(dst: int, src: int, nbytes: int, kind: int, stream: int) -> None:
    _check(_cudart().cudaMemcpyAsync(dst, src, nbytes, kind, stream), "cudaMemcpyAsync")


def stream_synchronize(stream: int) -> None:
    _check(_cudart().cudaStreamSynchronize(stream), "cudaStreamSynchronize")
