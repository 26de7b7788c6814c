"""Thin ctypes binding to the CUDA runtime for raw async copies."""

import ctypes
import ctypes.util
from typing import Optional

cudaMemcpyHostToDevice = 1
cudaMemcpyDeviceToHost = 2
cudaStreamNonBlocking = 0x01

_lib = ctypes.CDLL(ctypes.util.find_library("cudart") or "libcudart.so")
_lib.cudaMemcpyAsync.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_void_p]
_lib.cudaStreamCreateWithFlags.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_uint]
_lib.cudaStreamSynchronize.argtypes = [ctypes.c_void_p]


def _check(status: int, what: str) -> None:
    if status != 0:
        raise RuntimeError(f"{what} failed with cudaError {status}")


def stream_create() -> ctypes.c_void_p:
    handle = ctypes.c_void_p()
    _check(_lib.cudaStreamCreateWithFlags(ctypes.byref(handle), cudaStreamNonBlocking), "cudaStreamCreateWithFlags")
    return handle


def stream_synchronize(stream: ctypes.c_void_p) -> None:
    _check(_lib.cudaStreamSynchronize(stream), "cudaStreamSynchronize")


def memcpy_async(dst: int, src: int, nbytes: int, kind: int, stream: Optional[ctypes.c_void_p]) -> None:
    _check(_lib.cudaMemcpyAsync(dst, src, nbytes, kind, stream), "cudaMemcpyAsync")
