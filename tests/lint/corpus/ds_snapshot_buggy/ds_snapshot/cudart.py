# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
"""Thin ctypes bindings over the CUDA runtime used by the snapshot engine."""
import ctypes
import ctypes.util
from typing import Sequence

cudaMemcpyDeviceToHost = 2
cudaStreamNonBlocking = 0x1
cudaEventDisableTiming = 0x2
cudaMemLocationTypeDevice = 1
cudaMemLocationTypeHost = 2
cudaMemcpyFlagPreferOverlapWithCompute = 0x1

_lib = ctypes.CDLL(ctypes.util.find_library("cudart") or "libcudart.so")


class cudaMemLocation(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("id", ctypes.c_int)]


class cudaMemcpyAttributes(ctypes.Structure):
    _fields_ = [
        ("srcAccessOrder", ctypes.c_int),
        ("srcLocHint", cudaMemLocation),
        ("dstLocHint", cudaMemLocation),
        ("flags", ctypes.c_uint),
    ]


def _check(rc: int, what: str) -> None:
    if rc != 0:
        _lib.cudaGetErrorString.restype = ctypes.c_char_p
        raise RuntimeError(f"{what} failed: {_lib.cudaGetErrorString(rc).decode()}")


def stream_create() -> ctypes.c_void_p:
    stream = ctypes.c_void_p()
    _check(_lib.cudaStreamCreateWithFlags(ctypes.byref(stream), cudaStreamNonBlocking), "cudaStreamCreateWithFlags")
    return stream


def event_create() -> ctypes.c_void_p:
    event = ctypes.c_void_p()
    _check(_lib.cudaEventCreateWithFlags(ctypes.byref(event), cudaEventDisableTiming), "cudaEventCreateWithFlags")
    return event


def event_record(event: ctypes.c_void_p, stream: ctypes.c_void_p) -> None:
    _check(_lib.cudaEventRecord(event, stream), "cudaEventRecord")


def stream_wait_event(stream: ctypes.c_void_p, event: ctypes.c_void_p) -> None:
    _check(_lib.cudaStreamWaitEvent(stream, event, ctypes.c_uint(0)), "cudaStreamWaitEvent")


def stream_synchronize(stream: ctypes.c_void_p) -> None:
    _check(_lib.cudaStreamSynchronize(stream), "cudaStreamSynchronize")


def memcpy_d2h_async(dst: int, src: int, nbytes: int, stream: ctypes.c_void_p) -> None:
    rc = _lib.cudaMemcpyAsync(ctypes.c_void_p(dst), ctypes.c_void_p(src), ctypes.c_size_t(nbytes), cudaMemcpyDeviceToHost, stream)
    _check(rc, "cudaMemcpyAsync")


def make_d2h_attrs(src_access_order: int, device: int, prefer_overlap: bool) -> cudaMemcpyAttributes:
    attrs = cudaMemcpyAttributes()
    attrs.srcAccessOrder = src_access_order
    attrs.srcLocHint = cudaMemLocation(cudaMemLocationTypeDevice, device)
    attrs.dstLocHint = cudaMemLocation(cudaMemLocationTypeHost, 0)
    attrs.flags = cudaMemcpyFlagPreferOverlapWithCompute if prefer_overlap else 0
    return attrs


def memcpy_batch_async(dsts: Sequence[int], srcs: Sequence[int], sizes: Sequence[int],
                       attrs: cudaMemcpyAttributes, stream: ctypes.c_void_p) -> None:
    n = len(sizes)
    dst_arr = (ctypes.c_void_p * n)(*dsts)
    src_arr = (ctypes.c_void_p * n)(*srcs)
    size_arr = (ctypes.c_size_t * n)(*sizes)
    attr_idx = (ctypes.c_size_t * 1)(0)
    fail_idx = ctypes.c_size_t(0)
    # expect: KVG002
    rc = _lib.cudaMemcpyBatchAsync(dst_arr, src_arr, size_arr, ctypes.c_size_t(n), ctypes.byref(attrs), attr_idx, ctypes.c_size_t(1), ctypes.byref(fail_idx), stream)
    _check(rc, f"cudaMemcpyBatchAsync (failIdx={fail_idx.value})")
