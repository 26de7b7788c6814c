"""ctypes bindings for the handful of CUDA runtime calls the copy thread uses."""

import ctypes
import ctypes.util

from .config import CUDART_CANDIDATES

CUDA_MEMCPY_HOST_TO_DEVICE = 1
CUDA_MEMCPY_DEVICE_TO_HOST = 2


def load_cudart() -> ctypes.CDLL:
    names = [ctypes.util.find_library("cudart"), *CUDART_CANDIDATES]
    last_err = None
    for name in names:
        if not name:
            continue
        try:
            lib = ctypes.CDLL(name)
            break
        except OSError as e:
            last_err = e
    else:
        raise OSError(f"could not load libcudart: {last_err}")
    lib.cudaMemcpyAsync.argtypes = [ctypes.c_void_p, ctypes.c_void_p,
                                    ctypes.c_size_t, ctypes.c_int,
                                    ctypes.c_void_p]
    lib.cudaMemcpyAsync.restype = ctypes.c_int
    lib.cudaStreamSynchronize.argtypes = [ctypes.c_void_p]
    lib.cudaStreamSynchronize.restype = ctypes.c_int
    return lib


def check(rc: int, what: str) -> None:
    if rc != 0:
        raise RuntimeError(f"{what} failed with cudaError {rc}")
