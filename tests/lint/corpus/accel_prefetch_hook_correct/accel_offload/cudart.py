# Copyright 2025 The HuggingFace Team. All rights reserved.
"""Minimal ctypes bindings for the parts of libcudart used by the prefetching hooks."""
import ctypes
import ctypes.util
from typing import Optional

from .constants import CUDA_EVENT_DISABLE_TIMING, CUDA_STREAM_NON_BLOCKING

_LIB: Optional[ctypes.CDLL] = None


class cudaMemLocation(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("id", ctypes.c_int)]


class cudaMemcpyAttributes(ctypes.Structure):
    _fields_ = [
        ("srcAccessOrder", ctypes.c_int),
        ("srcLocHint", cudaMemLocation),
        ("dstLocHint", cudaMemLocation),
        ("flags", ctypes.c_uint),
    ]


def lib() -> ctypes.CDLL:
    global _LIB
    if _LIB is None:
        _LIB = ctypes.CDLL(ctypes.util.find_library("cudart") or "libcudart.so")
        _LIB.cudaMemcpyAsync.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                                         ctypes.c_void_p]
        _LIB.cudaEventRecord.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        _LIB.cudaStreamWaitEvent.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint]
    return _LIB


def check(code: int, what: str) -> None:
    if code != 0:
        msg = lib().cudaGetErrorString
        msg.restype = ctypes.c_char_p
        raise RuntimeError(f"{what} failed: {msg(code).decode()}")


def stream_create() -> ctypes.c_void_p:
    stream = ctypes.c_void_p()
    check(lib().cudaStreamCreateWithFlags(ctypes.byref(stream), CUDA_STREAM_NON_BLOCKING), "cudaStreamCreate")
    return stream


def event_create() -> ctypes.c_void_p:
    event = ctypes.c_void_p()
    check(lib().cudaEventCreateWithFlags(ctypes.byref(event), CUDA_EVENT_DISABLE_TIMING), "cudaEventCreate")
    return event


def event_record(event, stream) -> None:
    check(lib().cudaEventRecord(event, stream), "cudaEventRecord")


def stream_wait_event(stream, event) -> None:
    check(lib().cudaStreamWaitEvent(stream, event, 0), "cudaStreamWaitEvent")


def stream_synchronize(stream) -> None:
    check(lib().cudaStreamSynchronize(stream), "cudaStreamSynchronize")
