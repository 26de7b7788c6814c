"""Minimal ctypes bindings to the CUDA runtime for the disk copy threads."""

import ctypes
import ctypes.util

cudaMemcpyHostToDevice = 1
cudaMemcpyDeviceToHost = 2
cudaEventDisableTiming = 0x02

_lib = ctypes.CDLL(ctypes.util.find_library("cudart") or "libcudart.so")

_lib.cudaSetDevice.argtypes = [ctypes.c_int]
_lib.cudaStreamCreateWithFlags.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_uint]
_lib.cudaStreamSynchronize.argtypes = [ctypes.c_void_p]
_lib.cudaStreamWaitEvent.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint]
_lib.cudaEventCreateWithFlags.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_uint]
_lib.cudaEventRecord.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
_lib.cudaEventDestroy.argtypes = [ctypes.c_void_p]
_lib.cudaMemcpyAsync.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_void_p]


def _check(status: int, what: str) -> None:
    if status != 0:
        raise RuntimeError(f"{what} failed with cudaError {status}")


def set_device(ordinal: int) -> None:
    _check(_lib.cudaSetDevice(ordinal), "cudaSetDevice")


def stream_create() -> ctypes.c_void_p:
    stream = ctypes.c_void_p()
    _check(_lib.cudaStreamCreateWithFlags(ctypes.byref(stream), 1), "cudaStreamCreateWithFlags")
    return stream


def stream_synchronize(stream) -> None:
    _check(_lib.cudaStreamSynchronize(stream), "cudaStreamSynchronize")


def event_create() -> ctypes.c_void_p:
    event = ctypes.c_void_p()
    _check(_lib.cudaEventCreateWithFlags(ctypes.byref(event), cudaEventDisableTiming), "cudaEventCreateWithFlags")
    return event


def event_record(event, stream) -> None:
    _check(_lib.cudaEventRecord(event, stream), "cudaEventRecord")


def event_destroy(event) -> None:
    _check(_lib.cudaEventDestroy(event), "cudaEventDestroy")


def stream_wait_event(stream, event) -> None:
    _check(_lib.cudaStreamWaitEvent(stream, event, 0), "cudaStreamWaitEvent")


def memcpy_async(dst: int, src: int, nbytes: int, kind: int, stream) -> None:
    _check(_lib.cudaMemcpyAsync(dst, src, nbytes, kind, stream), "cudaMemcpyAsync")
