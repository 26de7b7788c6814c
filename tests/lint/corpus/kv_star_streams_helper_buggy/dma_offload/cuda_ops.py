"""Batch DMA through the driver's ``cuMemcpyBatchAsync``, resolved with ``cuGetProcAddress``
for the CUDA 12.8 ABI and called through a ctypes prototype. A copy plan holds the per-layer
base pointers, the stream handle and one attributes entry whose source access order a small
helper fills in."""

import ctypes
from typing import NamedTuple

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


_BATCH_FN_TYPE = ctypes.CFUNCTYPE(
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
_batch_fn = None


def _resolve_batch_fn():
    err, ptr, _ = drv.cuGetProcAddress(b"cuMemcpyBatchAsync", 12080, 0)
    if err != drv.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"cuGetProcAddress(cuMemcpyBatchAsync) failed: {err}")
    return _BATCH_FN_TYPE(ptr)


def set_src_order(attrs, order):
    attrs.srcAccessOrder = order


class CopyPlan(NamedTuple):
    src_bases: list
    dst_bases: list
    block_bytes: list
    attrs: _CUmemcpyAttributes
    attrs_idx: ctypes.c_size_t
    fail_idx: ctypes.c_size_t
    stream_handle: int


def make_plan(src_caches, dst_caches, stream, src_order):
    global _batch_fn
    if _batch_fn is None:
        _batch_fn = _resolve_batch_fn()
    attrs = _CUmemcpyAttributes()
    set_src_order(attrs, src_order)
    return CopyPlan(
        src_bases=[t.data_ptr() for t in src_caches],
        dst_bases=[t.data_ptr() for t in dst_caches],
        block_bytes=[t.stride(0) * t.element_size() for t in src_caches],
        attrs=attrs,
        attrs_idx=ctypes.c_size_t(0),
        fail_idx=ctypes.c_size_t(0),
        stream_handle=stream.cuda_stream,
    )


def run_plan(plan, src_blocks, dst_blocks):
    srcs, dsts, sizes = [], [], []
    for src_base, dst_base, nbytes in zip(plan.src_bases, plan.dst_bases, plan.block_bytes):
        for s, d in zip(src_blocks, dst_blocks):
            srcs.append(src_base + s * nbytes)
            dsts.append(dst_base + d * nbytes)
            sizes.append(nbytes)
    count = len(srcs)
    src_array = (ctypes.c_uint64 * count)(*srcs)
    dst_array = (ctypes.c_uint64 * count)(*dsts)
    size_array = (ctypes.c_size_t * count)(*sizes)
    # expect: KVG001, KVG002
    err = _batch_fn(
        dst_array,
        src_array,
        size_array,
        count,
        ctypes.addressof(plan.attrs),
        ctypes.byref(plan.attrs_idx),
        1,
        ctypes.byref(plan.fail_idx),
        plan.stream_handle,
    )
    if err != 0:
        raise RuntimeError(f"cuMemcpyBatchAsync failed: {err} at {plan.fail_idx.value}")
