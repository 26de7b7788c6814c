"""Batch DMA helpers in the shape of vLLM's simple offload ``cuda_mem_ops``: a ctypes
attributes struct, the ``cuMemcpyBatchAsync`` entry point from ``cuGetProcAddress``, a params
record built once per direction and a ``copy_blocks`` that expands block ids to pointers."""

import ctypes
from typing import Any, NamedTuple

import numpy as np
from cuda.bindings import driver as drv


class _CUmemLocation(ctypes.Structure):
    _fields_ = [("type", ctypes.c_uint), ("id", ctypes.c_int)]


class _CUmemcpyAttributes(ctypes.Structure):
    _fields_ = [
        ("srcAccessOrder", ctypes.c_uint),
        ("srcLocHint", _CUmemLocation),
        ("dstLocHint", _CUmemLocation),
        ("flags", ctypes.c_uint),
    ]


_FUNC_TYPE = ctypes.CFUNCTYPE(
    ctypes.c_uint,
    ctypes.c_void_p,
    ctypes.c_void_p,
    ctypes.c_void_p,
    ctypes.c_size_t,
    ctypes.c_void_p,
    ctypes.c_void_p,
    ctypes.c_size_t,
    ctypes.c_void_p,
    ctypes.c_void_p,
)
_batch_memcpy_fn: Any = None


class BatchParams(NamedTuple):
    src_bases: np.ndarray
    dst_bases: np.ndarray
    bpb: np.ndarray
    num_layers: int
    attrs: _CUmemcpyAttributes
    attrs_idx: ctypes.c_size_t
    fail_idx: ctypes.c_size_t
    stream_handle: int


def build_params(src_caches, dst_caches, stream, src_access_order):
    global _batch_memcpy_fn
    if _batch_memcpy_fn is None:
        err, ptr, _ = drv.cuGetProcAddress(b"cuMemcpyBatchAsync", 12080, 0)
        if err != drv.CUresult.CUDA_SUCCESS:
            raise RuntimeError(f"cuGetProcAddress failed: {err}")
        _batch_memcpy_fn = _FUNC_TYPE(ptr)
    src = list(src_caches.values())
    dst = list(dst_caches.values())
    return BatchParams(
        src_bases=np.array([t.data_ptr() for t in src], dtype=np.uint64),
        dst_bases=np.array([t.data_ptr() for t in dst], dtype=np.uint64),
        bpb=np.array([t.stride(0) * t.element_size() for t in src], dtype=np.uint64),
        num_layers=len(src),
        attrs=_CUmemcpyAttributes(srcAccessOrder=src_access_order),
        attrs_idx=ctypes.c_size_t(0),
        fail_idx=ctypes.c_size_t(0),
        stream_handle=stream.cuda_stream,
    )


def copy_blocks(src_ids, dst_ids, params):
    n = len(src_ids)
    if n == 0:
        return
    src = np.array(src_ids, dtype=np.uint64)
    dst = np.array(dst_ids, dtype=np.uint64)
    src_all = (params.src_bases[:, None] + src[None, :] * params.bpb[:, None]).ravel()
    dst_all = (params.dst_bases[:, None] + dst[None, :] * params.bpb[:, None]).ravel()
    sizes = np.repeat(params.bpb, n)
    # expect: KVG004, KVG002
    err = _batch_memcpy_fn(
        dst_all.ctypes.data,
        src_all.ctypes.data,
        sizes.ctypes.data,
        n * params.num_layers,
        ctypes.addressof(params.attrs),
        ctypes.byref(params.attrs_idx),
        1,
        ctypes.byref(params.fail_idx),
        params.stream_handle,
    )
    if err != 0:
        raise RuntimeError(f"batch memcpy failed: {err} (failIdx={params.fail_idx.value})")
