# SPDX-License-Identifier: Apache-2.0
"""ctypes bindings for the handful of CUDA runtime calls the offload path uses."""

import ctypes
import ctypes.util
import logging
from functools import lru_cache

logger = logging.getLogger(__name__)

cudaError_t = ctypes.c_int
cudaStream_t = ctypes.c_void_p
cudaEvent_t = ctypes.c_void_p

cudaSuccess = 0
cudaErrorNotReady = 600
cudaMemcpyHostToDevice = 1
cudaMemcpyDeviceToHost = 2
cudaStreamNonBlocking = 0x01
cudaEventDisableTiming = 0x02

cudaMemcpySrcAccessOrderStream = 1
cudaMemcpySrcAccessOrderDuringApiCall = 2
cudaMemcpySrcAccessOrderAny = 3
cudaMemLocationTypeDevice = 1
cudaMemLocationTypeHost = 2
cudaMemcpyFlagPreferOverlapWithCompute = 0x1


class cudaMemLocation(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("id", ctypes.c_int)]


class cudaMemcpyAttributes(ctypes.Structure):
    _fields_ = [
        ("srcAccessOrder", ctypes.c_int),
        ("srcLocHint", cudaMemLocation),
        ("dstLocHint", cudaMemLocation),
        ("flags", ctypes.c_uint),
    ]


_SIGNATURES = {
    "cudaStreamCreateWithFlags": [ctypes.POINTER(cudaStream_t), ctypes.c_uint],
    "cudaEventCreateWithFlags": [ctypes.POINTER(cudaEvent_t), ctypes.c_uint],
    "cudaEventRecord": [cudaEvent_t, cudaStream_t],
    "cudaEventQuery": [cudaEvent_t],
    "cudaEventSynchronize": [cudaEvent_t],
    "cudaStreamWaitEvent": [cudaStream_t, cudaEvent_t, ctypes.c_uint],
    "cudaMemcpyAsync": [
        ctypes.c_void_p,
        ctypes.c_void_p,
        ctypes.c_size_t,
        ctypes.c_int,
        cudaStream_t,
    ],
    "cudaMemcpyBatchAsync": [
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
}


@lru_cache(maxsize=1)
def load_cudart(so_file: str | None = None) -> ctypes.CDLL:
    so_file = so_file or ctypes.util.find_library("cudart") or "libcudart.so"
    lib = ctypes.CDLL(so_file)
    for name, argtypes in _SIGNATURES.items():
        fn = getattr(lib, name)
        fn.argtypes = argtypes
        fn.restype = cudaError_t
    logger.debug("Loaded CUDA runtime from %s", so_file)
    return lib


def check(err: int) -> None:
    if err != cudaSuccess:
        raise RuntimeError(f"CUDA runtime call failed with error {err}")


def new_stream(lib: ctypes.CDLL) -> cudaStream_t:
    stream = cudaStream_t()
    check(lib.cudaStreamCreateWithFlags(ctypes.byref(stream), cudaStreamNonBlocking))
    return stream


def new_event(lib: ctypes.CDLL) -> cudaEvent_t:
    event = cudaEvent_t()
    check(lib.cudaEventCreateWithFlags(ctypes.byref(event), cudaEventDisableTiming))
    return event
