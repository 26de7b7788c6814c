# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
import ctypes
import ctypes.util
import os

from .constants import CUDA_EVENT_DISABLE_TIMING, CUDA_MEMCPY_DEVICE_TO_HOST, CUDA_STREAM_NON_BLOCKING

_c_void_p = ctypes.c_void_p


def _load_cudart() -> ctypes.CDLL:
    for name in (os.environ.get("DS_CUDART_PATH"), ctypes.util.find_library("cudart"), "libcudart.so.12"):
        if name:
            try:
                return ctypes.CDLL(name)
            except OSError:
                continue
    raise RuntimeError("could not load libcudart")


class CudaRuntime:
    """Thin ctypes binding of the handful of runtime calls the checkpoint engine needs."""

    def __init__(self):
        lib = _load_cudart()
        lib.cudaGetErrorString.restype = ctypes.c_char_p
        lib.cudaGetErrorString.argtypes = [ctypes.c_int]
        lib.cudaStreamCreateWithFlags.argtypes = [ctypes.POINTER(_c_void_p), ctypes.c_uint]
        lib.cudaEventCreateWithFlags.argtypes = [ctypes.POINTER(_c_void_p), ctypes.c_uint]
        lib.cudaEventRecord.argtypes = [_c_void_p, _c_void_p]
        lib.cudaStreamWaitEvent.argtypes = [_c_void_p, _c_void_p, ctypes.c_uint]
        lib.cudaEventSynchronize.argtypes = [_c_void_p]
        lib.cudaMemcpyAsync.argtypes = [_c_void_p, _c_void_p, ctypes.c_size_t, ctypes.c_int, _c_void_p]
        self._lib = lib

    def _check(self, err: int, what: str) -> None:
        if err != 0:
            raise RuntimeError(f"{what} failed: {self._lib.cudaGetErrorString(err).decode()}")

    def stream_create(self) -> _c_void_p:
        handle = _c_void_p()
        self._check(self._lib.cudaStreamCreateWithFlags(ctypes.byref(handle), CUDA_STREAM_NON_BLOCKING),
                    "cudaStreamCreateWithFlags")
        return handle

    def event_create(self) -> _c_void_p:
        handle = _c_void_p()
        self._check(self._lib.cudaEventCreateWithFlags(ctypes.byref(handle), CUDA_EVENT_DISABLE_TIMING),
                    "cudaEventCreateWithFlags")
        return handle

    def event_record(self, event, stream) -> None:
        self._check(self._lib.cudaEventRecord(event, stream), "cudaEventRecord")

    def stream_wait_event(self, stream, event) -> None:
        self._check(self._lib.cudaStreamWaitEvent(stream, event, 0), "cudaStreamWaitEvent")

    def event_synchronize(self, event) -> None:
        self._check(self._lib.cudaEventSynchronize(event), "cudaEventSynchronize")

    def memcpy_d2h_async(self, dst_ptr: int, src_ptr: int, nbytes: int, stream) -> None:
        self._check(self._lib.cudaMemcpyAsync(dst_ptr, src_ptr, nbytes, CUDA_MEMCPY_DEVICE_TO_HOST, stream),
                    "cudaMemcpyAsync")
