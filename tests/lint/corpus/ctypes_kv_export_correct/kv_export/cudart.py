# SPDX-FileCopyrightText: Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: Apache-2.0
import ctypes
import functools
import os
from ctypes import c_int, c_size_t, c_uint, c_void_p

from .constants import (CUDA_EVENT_DISABLE_TIMING, CUDA_HOST_ALLOC_PORTABLE,
                        CUDA_STREAM_NON_BLOCKING, CUDA_SUCCESS, CUDART_CANDIDATES)


@functools.lru_cache(maxsize=1)
def cudart() -> ctypes.CDLL:
    override = os.environ.get("TRTLLM_CUDART_PATH")
    for name in ((override,) if override else CUDART_CANDIDATES):
        try:
            lib = ctypes.CDLL(name)
            break
        except OSError:
            continue
    else:
        raise OSError("could not load libcudart")
    lib.cudaMemcpyAsync.argtypes = [c_void_p, c_void_p, c_size_t, c_int, c_void_p]
    lib.cudaStreamCreateWithFlags.argtypes = [ctypes.POINTER(c_void_p), c_uint]
    lib.cudaEventCreateWithFlags.argtypes = [ctypes.POINTER(c_void_p), c_uint]
    lib.cudaEventRecord.argtypes = [c_void_p, c_void_p]
    lib.cudaStreamWaitEvent.argtypes = [c_void_p, c_void_p, c_uint]
    lib.cudaStreamSynchronize.argtypes = [c_void_p]
    lib.cudaHostAlloc.argtypes = [ctypes.POINTER(c_void_p), c_size_t, c_uint]
    return lib


def check(code: int, what: str) -> None:
    if code != CUDA_SUCCESS:
        raise RuntimeError(f"{what} failed with cudaError_t {code}")


def stream_create() -> int:
    handle = c_void_p()
    check(cudart().cudaStreamCreateWithFlags(ctypes.byref(handle), CUDA_STREAM_NON_BLOCKING),
          "cudaStreamCreateWithFlags")
    return handle.value


def event_create() -> int:
    handle = c_void_p()
    check(cudart().cudaEventCreateWithFlags(ctypes.byref(handle), CUDA_EVENT_DISABLE_TIMING),
          "cudaEventCreateWithFlags")
    return handle.value


def event_record(event: int, stream: int) -> None:
    check(cudart().cudaEventRecord(c_void_p(event), c_void_p(stream)), "cudaEventRecord")


def stream_wait_event(stream: int, event: int) -> None:
    check(cudart().cudaStreamWaitEvent(c_void_p(stream), c_void_p(event), 0), "cudaStreamWaitEvent")


def stream_synchronize(stream: int) -> None:
    check(cudart().cudaStreamSynchronize(c_void_p(stream)), "cudaStreamSynchronize")


def host_alloc(nbytes: int) -> int:
    ptr = c_void_p()
    check(cudart().cudaHostAlloc(ctypes.byref(ptr), nbytes, CUDA_HOST_ALLOC_PORTABLE), "cudaHostAlloc")
    return ptr.value
