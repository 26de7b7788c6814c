"""Minimal ctypes bindings to libcudart for the cache transceiver."""

import ctypes
import ctypes.util

cudaMemcpyHostToDevice = 1
cudaMemcpyDeviceToHost = 2
cudaStreamNonBlocking = 0x01
cudaEventDisableTiming = 0x02
cudaHostAllocPortable = 0x01

_lib = None


def _load() -> ctypes.CDLL:
    global _lib
    if _lib is None:
        lib = ctypes.CDLL(ctypes.util.find_library("cudart") or "libcudart.so")
        vp, sz, u32 = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint
        lib.cudaMemcpyAsync.argtypes = [vp, vp, sz, ctypes.c_int, vp]
        lib.cudaStreamCreateWithFlags.argtypes = [ctypes.POINTER(vp), u32]
        lib.cudaEventCreateWithFlags.argtypes = [ctypes.POINTER(vp), u32]
        lib.cudaEventRecord.argtypes = [vp, vp]
        lib.cudaStreamWaitEvent.argtypes = [vp, vp, u32]
        lib.cudaStreamSynchronize.argtypes = [vp]
        lib.cudaHostAlloc.argtypes = [ctypes.POINTER(vp), sz, u32]
        lib.cudaGetErrorString.restype = ctypes.c_char_p
        _lib = lib
    return _lib


def _check(rc: int, what: str) -> None:
    if rc != 0:
        raise RuntimeError(f"{what} failed: {_load().cudaGetErrorString(rc).decode()}")


def stream_create() -> int:
    handle = ctypes.c_void_p()
    _check(_load().cudaStreamCreateWithFlags(ctypes.byref(handle), cudaStreamNonBlocking), "cudaStreamCreateWithFlags")
    return handle.value


def event_create() -> int:
    handle = ctypes.c_void_p()
    _check(_load().cudaEventCreateWithFlags(ctypes.byref(handle), cudaEventDisableTiming), "cudaEventCreateWithFlags")
    return handle.value


def event_record(event: int, stream: int) -> None:
    _check(_load().cudaEventRecord(event, stream), "cudaEventRecord")


def stream_wait_event(stream: int, event: int) -> None:
    _check(_load().cudaStreamWaitEvent(stream, event, 0), "cudaStreamWaitEvent")


def stream_synchronize(stream: int) -> None:
    _check(_load().cudaStreamSynchronize(stream), "cudaStreamSynchronize")


def memcpy_async(dst: int, src: int, nbytes: int, kind: int, stream: int) -> None:
    _check(_load().cudaMemcpyAsync(dst, src, nbytes, kind, stream), "cudaMemcpyAsync")


def host_alloc(nbytes: int) -> int:
    ptr = ctypes.c_void_p()
    _check(_load().cudaHostAlloc(ctypes.byref(ptr), nbytes, cudaHostAllocPortable), "cudaHostAlloc")
    return ptr.value
