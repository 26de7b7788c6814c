"""Thin ctypes bindings to the parts of libcudart used by the host tier."""

import ctypes
import ctypes.util
import functools

cudaMemcpyHostToDevice = 1
cudaMemcpyDeviceToHost = 2
cudaStreamNonBlocking = 0x01
cudaEventDisableTiming = 0x02
cudaHostAllocDefault = 0x00
cudaErrorNotReady = 600

_vp = ctypes.c_void_p
_SIGNATURES = {
    "cudaMemcpyAsync": [_vp, _vp, ctypes.c_size_t, ctypes.c_int, _vp],
    "cudaStreamCreateWithFlags": [ctypes.POINTER(_vp), ctypes.c_uint],
    "cudaEventCreateWithFlags": [ctypes.POINTER(_vp), ctypes.c_uint],
    "cudaEventRecord": [_vp, _vp],
    "cudaStreamWaitEvent": [_vp, _vp, ctypes.c_uint],
    "cudaEventSynchronize": [_vp],
    "cudaEventQuery": [_vp],
    "cudaHostAlloc": [ctypes.POINTER(_vp), ctypes.c_size_t, ctypes.c_uint],
    "cudaFreeHost": [_vp],
}


class CudaRuntimeError(RuntimeError):
    pass


@functools.lru_cache(maxsize=None)
def libcudart() -> ctypes.CDLL:
    lib = ctypes.CDLL(ctypes.util.find_library("cudart") or "libcudart.so")
    for name, argtypes in _SIGNATURES.items():
        fn = getattr(lib, name)
        fn.argtypes = argtypes
        fn.restype = ctypes.c_int
    return lib


def check(err: int, what: str) -> None:
    if err != 0:
        raise CudaRuntimeError(f"{what} failed with cudaError_t {err}")


def stream_create() -> int:
    handle = _vp()
    check(libcudart().cudaStreamCreateWithFlags(ctypes.byref(handle), cudaStreamNonBlocking), "cudaStreamCreateWithFlags")
    return handle.value


def event_create() -> int:
    handle = _vp()
    check(libcudart().cudaEventCreateWithFlags(ctypes.byref(handle), cudaEventDisableTiming), "cudaEventCreateWithFlags")
    return handle.value


def event_record(event: int, stream: int) -> None:
    check(libcudart().cudaEventRecord(event, stream), "cudaEventRecord")


def stream_wait_event(stream: int, event: int) -> None:
    check(libcudart().cudaStreamWaitEvent(stream, event, 0), "cudaStreamWaitEvent")


def event_synchronize(event: int) -> None:
    check(libcudart().cudaEventSynchronize(event), "cudaEventSynchronize")


def event_query(event: int) -> bool:
    err = libcudart().cudaEventQuery(event)
    if err == cudaErrorNotReady:
        return False
    check(err, "cudaEventQuery")
    return True


def host_alloc(nbytes: int) -> int:
    ptr = _vp()
    check(libcudart().cudaHostAlloc(ctypes.byref(ptr), nbytes, cudaHostAllocDefault), "cudaHostAlloc")
    return ptr.value
