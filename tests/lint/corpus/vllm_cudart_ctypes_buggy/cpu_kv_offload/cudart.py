# SPDX-License-Identifier: Apache-2.0
"""ctypes bindings for the few CUDA runtime calls the CPU offload path needs."""
import ctypes
from dataclasses import dataclass
from typing import Any

cudaError_t = ctypes.c_int
cudaStream_t = ctypes.c_void_p
cudaEvent_t = ctypes.c_void_p

cudaSuccess = 0
cudaErrorNotReady = 600
cudaMemcpyHostToDevice = 1
cudaMemcpyDeviceToHost = 2
cudaStreamNonBlocking = 0x01
cudaEventDisableTiming = 0x02
cudaMemLocationTypeDevice = 1
cudaMemLocationTypeHost = 2


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
    argtypes: list


_P = ctypes.POINTER
EXPORTED_FUNCTIONS = [
    Function("cudaGetErrorString", ctypes.c_char_p, [cudaError_t]),
    Function("cudaRuntimeGetVersion", cudaError_t, [_P(ctypes.c_int)]),
    Function("cudaStreamCreateWithFlags", cudaError_t, [_P(cudaStream_t), ctypes.c_uint]),
    Function("cudaEventCreateWithFlags", cudaError_t, [_P(cudaEvent_t), ctypes.c_uint]),
    Function("cudaEventRecord", cudaError_t, [cudaEvent_t, cudaStream_t]),
    Function("cudaEventQuery", cudaError_t, [cudaEvent_t]),
    Function("cudaStreamWaitEvent", cudaError_t, [cudaStream_t, cudaEvent_t, ctypes.c_uint]),
    Function("cudaMemcpyAsync", cudaError_t,
             [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, cudaStream_t]),
    Function("cudaMemcpyBatchAsync", cudaError_t,
             [_P(ctypes.c_void_p), _P(ctypes.c_void_p), _P(ctypes.c_size_t), ctypes.c_size_t,
              _P(cudaMemcpyAttributes), _P(ctypes.c_size_t), ctypes.c_size_t,
              _P(ctypes.c_size_t), cudaStream_t]),
]

_LIBS: dict = {}


def load_cudart(so_file: str) -> ctypes.CDLL:
    if so_file not in _LIBS:
        lib = ctypes.CDLL(so_file)
        for func in EXPORTED_FUNCTIONS:
            f = getattr(lib, func.name)
            f.restype = func.restype
            f.argtypes = func.argtypes
        _LIBS[so_file] = lib
    return _LIBS[so_file]


def check(lib: ctypes.CDLL, result: int) -> None:
    if result != cudaSuccess:
        raise RuntimeError(f"CUDART error: {lib.cudaGetErrorString(result).decode()}")


def runtime_version(lib: ctypes.CDLL) -> int:
    version = ctypes.c_int()
    check(lib, lib.cudaRuntimeGetVersion(ctypes.byref(version)))
    return version.value
