# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the vLLM project
"""ctypes bindings for cudaMemcpyBatchAsync (CUDA runtime >= 12.8)."""

import ctypes
import ctypes.util
import logging
from typing import NamedTuple

import numpy as np
import torch

logger = logging.getLogger(__name__)

# enum cudaMemcpySrcAccessOrder
cudaMemcpySrcAccessOrderStream = 0x1
cudaMemcpySrcAccessOrderDuringApiCall = 0x2
cudaMemcpySrcAccessOrderAny = 0x3

cudaMemLocationTypeDevice = 1
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


_cudart: ctypes.CDLL | None = None


def _get_cudart() -> ctypes.CDLL:
    global _cudart
    if _cudart is None:
        name = ctypes.util.find_library("cudart") or "libcudart.so.12"
        lib = ctypes.CDLL(name)
        lib.cudaMemcpyBatchAsync.restype = ctypes.c_int
        lib.cudaMemcpyBatchAsync.argtypes = [
            ctypes.c_void_p,  # dsts
            ctypes.c_void_p,  # srcs
            ctypes.c_void_p,  # sizes
            ctypes.c_size_t,  # count
            ctypes.POINTER(cudaMemcpyAttributes),
            ctypes.POINTER(ctypes.c_size_t),  # attrsIdxs
            ctypes.c_size_t,  # numAttrs
            ctypes.POINTER(ctypes.c_size_t),  # failIdx
            ctypes.c_void_p,  # stream
        ]
        _cudart = lib
    return _cudart


class BatchMemcpyParams(NamedTuple):
    src_bases: np.ndarray  # [num_layers] uint64
    dst_bases: np.ndarray  # [num_layers] uint64
    bytes_per_block: np.ndarray  # [num_layers] uint64
    attrs: cudaMemcpyAttributes
    attrs_idx: ctypes.c_size_t
    fail_idx: ctypes.c_size_t
    stream_handle: int


def build_params(
    src_caches: list[torch.Tensor],
    dst_caches: list[torch.Tensor],
    stream: torch.cuda.Stream,
    src_access_order: int = cudaMemcpySrcAccessOrderAny,
) -> BatchMemcpyParams:
    bpb = [s.stride(0) * s.element_size() for s in src_caches]
    for d, b in zip(dst_caches, bpb):
        assert d.stride(0) * d.element_size() == b
    attrs = cudaMemcpyAttributes(srcAccessOrder=src_access_order)
    attrs.flags = cudaMemcpyFlagPreferOverlapWithCompute
    return BatchMemcpyParams(
        src_bases=np.array([s.data_ptr() for s in src_caches], dtype=np.uint64),
        dst_bases=np.array([d.data_ptr() for d in dst_caches], dtype=np.uint64),
        bytes_per_block=np.array(bpb, dtype=np.uint64),
        attrs=attrs,
        attrs_idx=ctypes.c_size_t(0),
        fail_idx=ctypes.c_size_t(0),
        stream_handle=stream.cuda_stream,
    )


def copy_blocks(src_ids: list[int], dst_ids: list[int], params: BatchMemcpyParams) -> None:
    if not src_ids:
        return
    src = np.asarray(src_ids, dtype=np.uint64)
    dst = np.asarray(dst_ids, dtype=np.uint64)
    bpb = params.bytes_per_block[:, None]
    srcs = np.ascontiguousarray((params.src_bases[:, None] + src[None, :] * bpb).ravel())
    dsts = np.ascontiguousarray((params.dst_bases[:, None] + dst[None, :] * bpb).ravel())
    sizes = np.ascontiguousarray(np.broadcast_to(bpb, (len(bpb), len(src))).ravel())
    err = _get_cudart().cudaMemcpyBatchAsync(
        dsts.ctypes.data,
        srcs.ctypes.data,
        sizes.ctypes.data,
        len(srcs),
        ctypes.byref(params.attrs),
        ctypes.byref(params.attrs_idx),
        1,
        ctypes.byref(params.fail_idx),
        params.stream_handle,
    )
    if err != 0:
        raise RuntimeError(f"cudaMemcpyBatchAsync failed: err={err} failIdx={params.fail_idx.value}")
