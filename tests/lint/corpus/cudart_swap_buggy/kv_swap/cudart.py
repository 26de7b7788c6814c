"""ctypes bindings for the handful of CUDA runtime calls the swapper needs."""

import ctypes
import ctypes.util
from dataclasses import dataclass
from typing import Any, List

from kv_swap.constants import CUDA_ERROR_NOT_READY, CUDA_SUCCESS

cudaError_t = ctypes.c_int
cudaStream_t = ctypes.c_void_p
cudaEvent_t = ctypes.c_void_p


class cudaMemLocation(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("id", ctypes.c_int)]


class cudaMemcpyAttributes(ctypes.Structure):
    _fields_ = [
        ("srcAccessOrder", ctypes.c_int),
        ("srcLocHint", cudaMemLocation),
        ("dstLocHint", cudaMemLocation),
        ("flags", ctypes.c_uint),
    ]


@dataclass
class Function:
    name: str
    restype: Any
    argtypes: List[Any]


_EXPORTED = [
    Function("cudaGetErrorString", ctypes.c_char_p, [cudaError_t]),
    Function(
        "cudaMemcpyAsync",
        cudaError_t,
        [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, cudaStream_t],
    ),
    Function(
        "cudaMemcpyBatchAsync",
        cudaError_t,
        [
            ctypes.POINTER(ctypes.c_void_p),
            ctypes.POINTER(ctypes.c_void_p),
            ctypes.POINTER(ctypes.c_size_t),
            ctypes.c_size_t,
            ctypes.POINTER(cudaMemcpyAttributes),
            ctypes.POINTER(ctypes.c_size_t),
            ctypes.c_size_t,
            ctypes.POINTER(ctypes.c_size_t),
            cudaStream_t,
        ],
    ),
    Function("cudaEventCreateWithFlags", cudaError_t, [ctypes.POINTER(cudaEvent_t), ctypes.c_uint]),
    Function("cudaEventRecord", cudaError_t, [cudaEvent_t, cudaStream_t]),
    Function("cudaStreamWaitEvent", cudaError_t, [cudaStream_t, cudaEvent_t, ctypes.c_uint]),
    Function("cudaEventQuery", cudaError_t, [cudaEvent_t]),
]


def _load(so_name: str = "cudart") -> ctypes.CDLL:
    lib = ctypes.CDLL(ctypes.util.find_library(so_name) or "libcudart.so")
    for func in _EXPORTED:
        f = getattr(lib, func.name)
        f.restype = func.restype
        f.argtypes = func.argtypes
    return lib


CUDART = _load()


def check(result: int) -> None:
    if result != CUDA_SUCCESS:
        msg = CUDART.cudaGetErrorString(result).decode("utf-8")
        raise RuntimeError(f"CUDART error: {msg}")


def create_event(flags: int) -> cudaEvent_t:
    event = cudaEvent_t()
    check(CUDART.cudaEventCreateWithFlags(ctypes.byref(event), flags))
    return event


def event_ready(event: cudaEvent_t) -> bool:
    rc = CUDART.cudaEventQuery(event)
    if rc == CUDA_ERROR_NOT_READY:
        return False
    check(rc)
    return True
