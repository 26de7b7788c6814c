# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
"""Minimal ctypes bindings to the CUDA runtime used for host swap of KV chunks."""

import ctypes
import ctypes.util

cudaMemcpyHostToDevice = 1
cudaMemcpyDeviceToHost = 2
cudaStreamNonBlocking = 0x01
cudaEventDisableTiming = 0x02

_lib = ctypes.CDLL(ctypes.util.find_library("cudart") or "libcudart.so")
_lib.cudaMemcpyAsync.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_void_p]
_lib.cudaStreamCreateWithFlags.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_uint]
_lib.cudaStreamSynchronize.argtypes = [ctypes.c_void_p]
_lib.cudaEventCreateWithFlags.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_uint]
_lib.cudaEventRecord.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
_lib.cudaStreamWaitEvent.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint]


def _check(status: int, what: str) -> None:
    if status != 0:
        raise RuntimeError(f"{what} failed with cudaError {status}")


def stream_create() -> ctypes.c_void_p:
    handle = ctypes.c_void_p()
    _check(_lib.cudaStreamCreateWithFlags(ctypes.byref(handle), cudaStreamNonBlocking), "cudaStreamCreate")
    return handle


def event_create() -> ctypes.c_void_p:
    handle = ctypes.c_void_p()
    _check(_lib.cudaEventCreateWithFlags(ctypes.byref(handle), cudaEventDisableTiming), "cudaEventCreate")
    return handle


def event_record(event, stream) -> None:
    _check(_lib.cudaEventRecord(event, stream), "cudaEventRecord")


def stream_wait_event(stream, event) -> None:
    _check(_lib.cudaStreamWaitEvent(stream, event, 0), "cudaStreamWaitEvent")


def stream_synchronize(stream) -> None:
    _check(_lib.cudaStreamSynchronize(stream), "cudaStreamSynchronize")


def memcpy_d2h_async(dst_ptr: int, src_ptr: int, nbytes: int, stream) -> None:
    _check(_lib.cudaMemcpyAsync(dst_ptr, src_ptr, nbytes, cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync")


def memcpy_h2d_async(dst_ptr: int, src_ptr: int, nbytes: int, stream) -> None:
    _check(_lib.cudaMemcpyAsync(dst_ptr, src_ptr, nbytes, cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync")
