"""Thin ctypes binding to the CUDA runtime, just what the block tiers need."""

import ctypes
import ctypes.util
import functools

cudaSuccess = 0
cudaMemcpyHostToDevice = 1
cudaMemcpyDeviceToHost = 2
cudaStreamNonBlocking = 0x01
cudaEventDisableTiming = 0x02
cudaHostAllocPortable = 0x01

_c = ctypes
_SIGNATURES = {
    "cudaMemcpyAsync": [_c.c_void_p, _c.c_void_p, _c.c_size_t, _c.c_int, _c.c_void_p],
    "cudaStreamCreateWithFlags": [_c.POINTER(_c.c_void_p), _c.c_uint],
    "cudaEventCreateWithFlags": [_c.POINTER(_c.c_void_p), _c.c_uint],
    "cudaEventRecord": [_c.c_void_p, _c.c_void_p],
    "cudaEventQuery": [_c.c_void_p],
    "cudaEventDestroy": [_c.c_void_p],
    "cudaStreamWaitEvent": [_c.c_void_p, _c.c_void_p, _c.c_uint],
    "cudaStreamSynchronize": [_c.c_void_p],
    "cudaHostAlloc": [_c.POINTER(_c.c_void_p), _c.c_size_t, _c.c_uint],
}


@functools.lru_cache(maxsize=1)
def get_cudart() -> ctypes.CDLL:
    lib = ctypes.CDLL(ctypes.util.find_library("cudart") or "libcudart.so")
    for name, argtypes in _SIGNATURES.items():
        fn = getattr(lib, name)
        fn.argtypes = argtypes
        fn.restype = ctypes.c_int
    return lib


def check(err: int, what: str) -> None:
    if err != cudaSuccess:
        raise RuntimeError(f"{what} failed with cudaError {err}")


def create_stream() -> ctypes.c_void_p:
    handle = ctypes.c_void_p()
    check(get_cudart().cudaStreamCreateWithFlags(ctypes.byref(handle), cudaStreamNonBlocking),
          "cudaStreamCreateWithFlags")
    return handle


def create_event() -> ctypes.c_void_p:
    handle = ctypes.c_void_p()
    check(get_cudart().cudaEventCreateWithFlags(ctypes.byref(handle), cudaEventDisableTiming),
          "cudaEventCreateWithFlags")
    return handle


def host_alloc(num_bytes: int) -> int:
    ptr = ctypes.c_void_p()
    check(get_cudart().cudaHostAlloc(ctypes.byref(ptr), num_bytes, cudaHostAllocPortable),
          "cudaHostAlloc")
    return ptr.value
