# SPDX-License-Identifier: Apache-2.0
import ctypes
import logging

from .constants import (CUDA_EVENT_DISABLE_TIMING, CUDA_MEMCPY_DEVICE_TO_HOST,
                        CUDA_MEMCPY_HOST_TO_DEVICE, CUDA_STREAM_NON_BLOCKING,
                        CUDA_SUCCESS, LIBCUDART_NAMES)

logger = logging.getLogger(__name__)

_vp, _sz, _int = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int


class CudaRT:
    def __init__(self, lib: ctypes.CDLL) -> None:
        self._lib = lib
        lib.cudaMemcpyAsync.argtypes = [_vp, _vp, _sz, _int, _vp]
        lib.cudaStreamCreateWithFlags.argtypes = [ctypes.POINTER(_vp), ctypes.c_uint]
        lib.cudaEventCreateWithFlags.argtypes = [ctypes.POINTER(_vp), ctypes.c_uint]
        lib.cudaEventRecord.argtypes = [_vp, _vp]
        lib.cudaStreamWaitEvent.argtypes = [_vp, _vp, ctypes.c_uint]
        for fn in ("cudaEventSynchronize", "cudaStreamSynchronize"):
            getattr(lib, fn).argtypes = [_vp]

    @classmethod
    def load(cls) -> "CudaRT":
        for name in LIBCUDART_NAMES:
            try:
                return cls(ctypes.CDLL(name))
            except OSError:
                continue
        raise RuntimeError("libcudart not found")

    @staticmethod
    def _check(err: int, what: str) -> None:
        if err != CUDA_SUCCESS:
            raise RuntimeError(f"{what} failed with cudaError {err}")

    def stream_create(self) -> int:
        handle = _vp()
        self._check(self._lib.cudaStreamCreateWithFlags(
            ctypes.byref(handle), CUDA_STREAM_NON_BLOCKING), "cudaStreamCreate")
        return handle.value

    def event_create(self) -> int:
        handle = _vp()
        self._check(self._lib.cudaEventCreateWithFlags(
            ctypes.byref(handle), CUDA_EVENT_DISABLE_TIMING), "cudaEventCreate")
        return handle.value

    def event_record(self, event: int, stream: int) -> None:
        self._check(self._lib.cudaEventRecord(event, stream), "cudaEventRecord")

    def event_synchronize(self, event: int) -> None:
        self._check(self._lib.cudaEventSynchronize(event), "cudaEventSynchronize")

    def stream_wait_event(self, stream: int, event: int) -> None:
        self._check(self._lib.cudaStreamWaitEvent(stream, event, 0), "cudaStreamWaitEvent")

    def stream_synchronize(self, stream: int) -> None:
        self._check(self._lib.cudaStreamSynchronize(stream), "cudaStreamSynchronize")

    def copy_d2h(self, dst: int, src: int, nbytes: int, stream: int) -> None:
        err = self._lib.cudaMemcpyAsync(dst, src, nbytes, CUDA_MEMCPY_DEVICE_TO_HOST, stream)
        self._check(err, "cudaMemcpyAsync(D2H)")

    def copy_h2d(self, dst: int, src: int, nbytes: int, stream: int) -> None:
        err = self._lib.cudaMemcpyAsync(dst, src, nbytes, CUDA_MEMCPY_HOST_TO_DEVICE, stream)
        self._check(err, "cudaMemcpyAsync(H2D)")
