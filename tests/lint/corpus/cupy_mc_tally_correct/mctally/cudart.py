"""Minimal ctypes bindings to the CUDA runtime used by the readback path."""

import ctypes
import ctypes.util

_lib = None


def load_cudart() -> ctypes.CDLL:
    global _lib
    if _lib is None:
        lib = ctypes.CDLL(ctypes.util.find_library("cudart") or "libcudart.so")
        lib.cudaMemcpyAsync.argtypes = [
            ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_void_p,
        ]
        lib.cudaMemcpyAsync.restype = ctypes.c_int
        lib.cudaStreamWaitEvent.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint]
        lib.cudaStreamWaitEvent.restype = ctypes.c_int
        lib.cudaGetErrorString.argtypes = [ctypes.c_int]
        lib.cudaGetErrorString.restype = ctypes.c_char_p
        _lib = lib
    return _lib


def check(code: int) -> None:
    if code != 0:
        msg = load_cudart().cudaGetErrorString(code).decode()
        raise RuntimeError(f"CUDA runtime error {code}: {msg}")
