# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team

import ctypes
import ctypes.util
from ctypes import byref, c_int, c_size_t, c_uint, c_void_p

from nvmeswap.constants import CUDA_EVENT_DISABLE_TIMING, CUDA_HOST_ALLOC_DEFAULT, CUDA_STREAM_NON_BLOCKING

_lib = None


def _cudart():
    global _lib
    if _lib is None:
        _lib = ctypes.CDLL(ctypes.util.find_library("cudart") or "libcudart.so")
        _lib.cudaMemcpyAsync.argtypes = [c_void_p, c_void_p, c_size_t, c_int, c_void_p]
        _lib.cudaStreamWaitEvent.argtypes = [c_void_p, c_void_p, c_uint]
        _lib.cudaEventRecord.argtypes = [c_void_p, c_void_p]
        _lib.cudaStreamSynchronize.argtypes = [c_void_p]
    return _lib


def _check(err: int, what: str) -> None:
    if err != 0:
        raise RuntimeError(f"{what} failed with cudaError_t {err}")


def memcpy_async(dst: int, src: int, nbytes: int, kind: int, stream: int) -> None:
    _check(_cudart().cudaMemcpyAsync(dst, src, nbytes, kind, stream), "cudaMemcpyAsync")


def stream_create() -> int:
    handle = c_void_p()
    _check(_cudart().cudaStreamCreateWithFlags(byref(handle), c_uint(CUDA_STREAM_NON_BLOCKING)), "cudaStreamCreateWithFlags")
    return handle.value


def stream_synchronize(stream: int) -> None:
    _check(_cudart().cudaStreamSynchronize(stream), "cudaStreamSynchronize")


def event_create() -> int:
    handle = c_void_p()
    _check(_cudart().cudaEventCreateWithFlags(byref(handle), c_uint(CUDA_EVENT_DISABLE_TIMING)), "cudaEventCreateWithFlags")
    return handle.value


def event_record(event: int, stream: int) -> None:
    _check(_cudart().cudaEventRecord(event, stream), "cudaEventRecord")


def stream_wait_event(stream: int, event: int) -> None:
    _check(_cudart().cudaStreamWaitEvent(stream, event, 0), "cudaStreamWaitEvent")


def host_alloc(nbytes: int) -> int:
    ptr = c_void_p()
    _check(_cudart().cudaHostAlloc(byref(ptr), c_size_t(nbytes), c_uint(CUDA_HOST_ALLOC_DEFAULT)), "cudaHostAlloc")
    return ptr.value
