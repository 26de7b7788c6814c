"""Thin ctypes bindings to the CUDA runtime used by the disk offloader."""
import ctypes
import ctypes.util
from typing import Optional

_lib: Optional[ctypes.CDLL] = None


def _cudart() -> ctypes.CDLL:
    global _lib
    if _lib is None:
        name = ctypes.util.find_library("cudart") or "libcudart.so"
        _lib = ctypes.CDLL(name)
        _lib.cudaMemcpyAsync.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t,
                                         ctypes.c_int, ctypes.c_void_p]
        _lib.cudaStreamCreateWithFlags.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_uint]
        _lib.cudaStreamSynchronize.argtypes = [ctypes.c_void_p]
        _lib.cudaStreamWaitEvent.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint]
        _lib.cudaEventCreateWithFlags.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_uint]
        _lib.cudaEventRecord.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        _lib.cudaEventDestroy.argtypes = [ctypes.c_void_p]
        _lib.cudaHostAlloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t, ctypes.c_uint]
    return _lib


def check(status: int, what: str) -> None:
    if status != 0:
        raise RuntimeError(f"{what} failed with cudaError {status}")


def stream_create() -> int:
    handle = ctypes.c_void_p()
    check(_cudart().cudaStreamCreateWithFlags(ctypes.byref(handle), 1), "cudaStreamCreateWithFlags")
    return handle.value


def event_create(flags: int) -> int:
    handle = ctypes.c_void_p()
    check(_cudart().cudaEventCreateWithFlags(ctypes.byref(handle), flags), "cudaEventCreateWithFlags")
    return handle.value


def event_record(event: int, stream: int) -> None:
    check(_cudart().cudaEventRecord(event, stream), "cudaEventRecord")


def event_destroy(event: int) -> None:
    check(_cudart().cudaEventDestroy(event), "cudaEventDestroy")


def stream_wait_event(stream: int, event: int) -> None:
    check(_cudart().cudaStreamWaitEvent(stream, event, 0), "cudaStreamWaitEvent")


def stream_synchronize(stream: int) -> None:
    check(_cudart().cudaStreamSynchronize(stream), "cudaStreamSynchronize")


def memcpy_async(dst: int, src: int, nbytes: int, kind: int, stream: int) -> None:
    check(_cudart().cudaMemcpyAsync(dst, src, nbytes, kind, stream), "cudaMemcpyAsync")


def host_alloc(nbytes: int) -> int:
    ptr = ctypes.c_void_p()
    check(_cudart().cudaHostAlloc(ctypes.byref(ptr), nbytes, 0), "cudaHostAlloc")
    return ptr.value
