from __future__ import annotations

import ctypes
import ctypes.util
from typing import Sequence

from .constants import cudaErrorNotReady, cudaSuccess

lib = _lib = ctypes.CDLL(ctypes.util.find_library("cudart") or "libcudart.so")

c_void_p = ctypes.c_void_p
c_size_t = ctypes.c_size_t


class cudaMemLocation(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("id", ctypes.c_int)]


class cudaMemcpyAttributes(ctypes.Structure):
    _fields_ = [
        ("srcAccessOrder", ctypes.c_int),
        ("srcLocHint", cudaMemLocation),
        ("dstLocHint", cudaMemLocation),
        ("flags", ctypes.c_uint),
    ]


_lib.cudaStreamCreateWithFlags.argtypes = [ctypes.POINTER(c_void_p), ctypes.c_uint]
_lib.cudaEventCreateWithFlags.argtypes = [ctypes.POINTER(c_void_p), ctypes.c_uint]
_lib.cudaEventRecord.argtypes = [c_void_p, c_void_p]
_lib.cudaEventQuery.argtypes = [c_void_p]
_lib.cudaEventDestroy.argtypes = [c_void_p]
_lib.cudaStreamWaitEvent.argtypes = [c_void_p, c_void_p, ctypes.c_uint]
_lib.cudaMemcpyBatchAsync.argtypes = [
    ctypes.POINTER(c_void_p), ctypes.POINTER(c_void_p), ctypes.POINTER(c_size_t), c_size_t,
    ctypes.POINTER(cudaMemcpyAttributes), ctypes.POINTER(c_size_t), c_size_t,
    ctypes.POINTER(c_size_t), c_void_p,
]


def _check(err: int, what: str) -> None:
    if err != cudaSuccess:
        raise RuntimeError(f"{what} failed with cudaError {err}")


def stream_create(flags: int) -> int:
    handle = c_void_p()
    _check(_lib.cudaStreamCreateWithFlags(ctypes.byref(handle), flags), "cudaStreamCreateWithFlags")
    return handle.value


def event_create(flags: int) -> int:
    handle = c_void_p()
    _check(_lib.cudaEventCreateWithFlags(ctypes.byref(handle), flags), "cudaEventCreateWithFlags")
    return handle.value


def event_record(event: int, stream: int) -> None:
    _check(_lib.cudaEventRecord(event, stream), "cudaEventRecord")


def event_query(event: int) -> bool:
    err = _lib.cudaEventQuery(event)
    if err == cudaErrorNotReady:
        return False
    _check(err, "cudaEventQuery")
    return True


def event_destroy(event: int) -> None:
    _check(_lib.cudaEventDestroy(event), "cudaEventDestroy")


def stream_wait_event(stream: int, event: int) -> None:
    _check(_lib.cudaStreamWaitEvent(stream, event, 0), "cudaStreamWaitEvent")


def ptr_array(values: Sequence[int]) -> ctypes.Array:
    return (c_void_p * len(values))(*values)


def size_array(values: Sequence[int]) -> ctypes.Array:
    return (c_size_t * len(values))(*values)


def check(err: int, what: str) -> None:
    _check(err, what)
