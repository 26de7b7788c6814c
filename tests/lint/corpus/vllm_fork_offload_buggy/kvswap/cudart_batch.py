# SPDX-License-Identifier: Apache-2.0
"""ctypes binding of cudaMemcpyBatchAsync (CUDA 12.8+ runtime)."""
from __future__ import annotations

import ctypes
import functools

import numpy as np

from .constants import (MEM_LOCATION_DEVICE, MEM_LOCATION_HOST,
                        MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE, OP_STORE,
                        SRC_ACCESS_ORDER_BY_OP)


class CudaMemLocation(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("id", ctypes.c_int)]


class CudaMemcpyAttributes(ctypes.Structure):
    _fields_ = [
        ("srcAccessOrder", ctypes.c_int),
        ("srcLocHint", CudaMemLocation),
        ("dstLocHint", CudaMemLocation),
        ("flags", ctypes.c_uint),
    ]


@functools.cache
def _cudart() -> ctypes.CDLL:
    so = ctypes.CDLL("libcudart.so.12", mode=ctypes.RTLD_GLOBAL)
    so.cudaMemcpyBatchAsync.restype = ctypes.c_int
    so.cudaMemcpyBatchAsync.argtypes = [ctypes.c_void_p] * 3 + [
        ctypes.c_size_t, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t,
        ctypes.c_void_p, ctypes.c_void_p
    ]
    return so


def attrs_for(op: str, device_id: int) -> CudaMemcpyAttributes:
    device = CudaMemLocation(MEM_LOCATION_DEVICE, device_id)
    host = CudaMemLocation(MEM_LOCATION_HOST, 0)
    src, dst = (device, host) if op == OP_STORE else (host, device)
    return CudaMemcpyAttributes(
        srcAccessOrder=SRC_ACCESS_ORDER_BY_OP[op],
        srcLocHint=src,
        dstLocHint=dst,
        flags=MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE,
    )


def batch_memcpy_async(dsts: np.ndarray, srcs: np.ndarray, sizes: np.ndarray,
                       attrs: CudaMemcpyAttributes, stream: int) -> None:
    attrs_idx = ctypes.c_size_t(0)
    fail_idx = ctypes.c_size_t(0)
    # expect: KVG004, KVG002
    err = _cudart().cudaMemcpyBatchAsync(dsts.ctypes.data, srcs.ctypes.data,
                                         sizes.ctypes.data, sizes.size,
                                         ctypes.byref(attrs),
                                         ctypes.byref(attrs_idx), 1,
                                         ctypes.byref(fail_idx), stream)
    if err != 0:
        raise RuntimeError(
            f"cudaMemcpyBatchAsync failed: {err} (failIdx={fail_idx.value})")
