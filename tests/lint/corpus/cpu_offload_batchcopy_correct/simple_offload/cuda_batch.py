"""Batched block copies through cuMemcpyBatchAsync."""

from __future__ import annotations

import ctypes
from typing import Any, NamedTuple

import numpy as np
import torch

from simple_offload.consts import (
    CU_MEMCPY_BATCH_MIN_DRIVER,
    CU_MEMCPY_SRC_ACCESS_ORDER_ANY,
)


class _CUmemLocation(ctypes.Structure):
    _fields_ = [("type", ctypes.c_uint), ("id", ctypes.c_int)]


class _CUmemcpyAttributes(ctypes.Structure):
    _fields_ = [
        ("srcAccessOrder", ctypes.c_uint),
        ("srcLocHint", _CUmemLocation),
        ("dstLocHint", _CUmemLocation),
        ("flags", ctypes.c_uint),
    ]


_BATCH_MEMCPY_FUNC_TYPE = ctypes.CFUNCTYPE(
    ctypes.c_uint,
    ctypes.c_void_p,  # dsts
    ctypes.c_void_p,  # srcs
    ctypes.c_void_p,  # sizes
    ctypes.c_size_t,  # count
    ctypes.c_void_p,  # attrs
    ctypes.c_void_p,  # attrsIdxs
    ctypes.c_size_t,  # numAttrs
    ctypes.c_void_p,  # failIdx
    ctypes.c_void_p,  # hStream
)

_batch_memcpy_fn: Any = None


def _resolve_batch_memcpy():
    from cuda.bindings import driver as drv

    err, ptr, _ = drv.cuGetProcAddress(b"cuMemcpyBatchAsync", CU_MEMCPY_BATCH_MIN_DRIVER, 0)
    if err != drv.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"cuGetProcAddress(cuMemcpyBatchAsync) failed: {err}")
    return _BATCH_MEMCPY_FUNC_TYPE(ptr)


class BatchMemcpyParams(NamedTuple):
    src_bases: np.ndarray
    dst_bases: np.ndarray
    bytes_per_block: np.ndarray
    num_layers: int
    attrs: _CUmemcpyAttributes
    attrs_idx: ctypes.c_size_t
    fail_idx: ctypes.c_size_t
    stream_handle: int


def build_params(
    src_caches: dict[str, torch.Tensor],
    dst_caches: dict[str, torch.Tensor],
    stream: torch.cuda.Stream,
    src_access_order: int = CU_MEMCPY_SRC_ACCESS_ORDER_ANY,
) -> BatchMemcpyParams:
    global _batch_memcpy_fn
    if _batch_memcpy_fn is None:
        _batch_memcpy_fn = _resolve_batch_memcpy()
    assert list(src_caches) == list(dst_caches)
    src = list(src_caches.values())
    dst = list(dst_caches.values())
    bpb = [t.stride(0) * t.element_size() for t in src]
    return BatchMemcpyParams(
        src_bases=np.array([t.data_ptr() for t in src], dtype=np.uint64),
        dst_bases=np.array([t.data_ptr() for t in dst], dtype=np.uint64),
        bytes_per_block=np.array(bpb, dtype=np.uint64),
        num_layers=len(src),
        attrs=_CUmemcpyAttributes(srcAccessOrder=src_access_order),
        attrs_idx=ctypes.c_size_t(0),
        fail_idx=ctypes.c_size_t(0),
        stream_handle=stream.cuda_stream,
    )


def copy_blocks(src_block_ids: list[int], dst_block_ids: list[int], params: BatchMemcpyParams) -> int:
    n = len(src_block_ids)
    if n == 0:
        return 0
    src_ids = np.asarray(src_block_ids, dtype=np.uint64)
    dst_ids = np.asarray(dst_block_ids, dtype=np.uint64)
    srcs = (params.src_bases[:, None] + src_ids[None, :] * params.bytes_per_block[:, None]).ravel()
    dsts = (params.dst_bases[:, None] + dst_ids[None, :] * params.bytes_per_block[:, None]).ravel()
    sizes = np.repeat(params.bytes_per_block, n)
    total = int(sizes.size)
    err = _batch_memcpy_fn(
        dsts.ctypes.data,
        srcs.ctypes.data,
        sizes.ctypes.data,
        total,
        ctypes.addressof(params.attrs),
        ctypes.byref(params.attrs_idx),
        1,
        ctypes.byref(params.fail_idx),
        params.stream_handle,
    )
    if err != 0:
        raise RuntimeError(f"cuMemcpyBatchAsync failed: err={err} failIdx={params.fail_idx.value}")
    return int(sizes.sum())
