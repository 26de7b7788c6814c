"""Minimal ctypes binding of libcudart used by the Python transceiver."""
from __future__ import annotations

import ctypes
import ctypes.util
import functools

cudaSuccess = 0
cudaMemcpyHostToDevice = 1
cudaMemcpyDeviceToHost = 2
cudaEventDisableTiming = 0x02


class CudaRuntimeError(RuntimeError):
    pass


@functools.lru_cache(maxsize=1)
def lib() -> ctypes.CDLL:
    so = ctypes.CDLL(ctypes.util.find_library("cudart") or "libcudart.so")
    so.cudaMemcpyAsync.argtypes = [
        ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
        ctypes.c_void_p
    ]
    so.cudaEventCreateWithFlags.argtypes = [
        ctypes.POINTER(ctypes.c_void_p), ctypes.c_uint
    ]
    so.cudaEventRecord.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    so.cudaStreamWaitEvent.argtypes = [
        ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint
    ]
    so.cudaEventSynchronize.argtypes = [ctypes.c_void_p]
    so.cudaEventDestroy.argtypes = [ctypes.c_void_p]
    return so


def check(status: int, what: str) -> None:
    if status != cudaSuccess:
        raise CudaRuntimeError(f"{what} failed with cudaError {status}")


class CudaEvent:

    def __init__(self) -> None:
        self.handle = ctypes.c_void_p()
        check(
            lib().cudaEventCreateWithFlags(ctypes.byref(self.handle),
                                            cudaEventDisableTiming),
            "cudaEventCreateWithFlags")

    def record(self, stream: int) -> None:
        check(lib().cudaEventRecord(self.handle, stream), "cudaEventRecord")

    def wait(self, stream: int) -> None:
        check(lib().cudaStreamWaitEvent(stream, self.handle, 0),
              "cudaStreamWaitEvent")

    def synchronize(self) -> None:
        check(lib().cudaEventSynchronize(self.handle), "cudaEventSynchronize")

    def destroy(self) -> None:
        if self.handle:
            lib().cudaEventDestroy(self.handle)
            self.handle = ctypes.c_void_p()
