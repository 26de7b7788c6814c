"""Minimal ctypes bindings to the CUDA runtime used by the sender."""

import ctypes
import ctypes.util

cudaMemcpyDeviceToHost = 2
cudaStreamNonBlocking = 0x1
cudaEventDisableTiming = 0x2

_lib = ctypes.CDLL(ctypes.util.find_library("cudart") or "libcudart.so")

_lib.cudaMemcpyAsync.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_void_p]
_lib.cudaStreamWaitEvent.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint]
_lib.cudaEventRecord.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
_lib.cudaStreamSynchronize.argtypes = [ctypes.c_void_p]
_lib.cudaEventDestroy.argtypes = [ctypes.c_void_p]


def _check(status: int, what: str) -> None:
    if status != 0:
        raise RuntimeError(f"{what} failed with cudaError {status}")


def stream_create() -> ctypes.c_void_p:
    stream = ctypes.c_void_p()
    _check(_lib.cudaStreamCreateWithFlags(ctypes.byref(stream), cudaStreamNonBlocking), "cudaStreamCreateWithFlags")
    return stream


def event_create() -> ctypes.c_void_p:
    event = ctypes.c_void_p()
    _check(_lib.cudaEventCreateWithFlags(ctypes.byref(event), cudaEventDisableTiming), "cudaEventCreateWithFlags")
    return event


def host_alloc(nbytes: int) -> ctypes.c_void_p:
    ptr = ctypes.c_void_p()
    _check(_lib.cudaHostAlloc(ctypes.byref(ptr), ctypes.c_size_t(nbytes), 0), "cudaHostAlloc")
    return ptr


def event_record(event, stream) -> None:
    _check(_lib.cudaEventRecord(event, stream), "cudaEventRecord")


def event_destroy(event) -> None:
    _check(_lib.cudaEventDestroy(event), "cudaEventDestroy")


def stream_wait_event(stream, event) -> None:
    _check(_lib.cudaStreamWaitEvent(stream, event, 0), "cudaStreamWaitEvent")


def stream_synchronize(stream) -> None:
    _check(_lib.cudaStreamSynchronize(stream), "cudaStreamSynchronize")


def memcpy_d2h_async(dst, src: int, nbytes: int, stream) -> None:
    _check(_lib.cudaMemcpyAsync(dst, ctypes.c_void_p(src), nbytes, cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync")
