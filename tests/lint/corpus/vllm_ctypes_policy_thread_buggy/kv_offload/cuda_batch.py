"""``cudaMemcpyBatchAsync`` (CUDA 12.8 runtime) through ctypes, for block tables that would
otherwise need one ``cudaMemcpyAsync`` per block and layer."""

import ctypes
import ctypes.util
import enum
from typing import Sequence

import torch


class SrcAccessOrder(enum.IntEnum):
    STREAM = 1
    DURING_API_CALL = 2
    ANY = 3


MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE = 0x1


class MemLocation(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("id", ctypes.c_int)]


class MemcpyAttributes(ctypes.Structure):
    _fields_ = [
        ("srcAccessOrder", ctypes.c_int),
        ("srcLocHint", MemLocation),
        ("dstLocHint", MemLocation),
        ("flags", ctypes.c_uint),
    ]


_libcudart = ctypes.CDLL(ctypes.util.find_library("cudart") or "libcudart.so.12")
_memcpy_batch_async = _libcudart.cudaMemcpyBatchAsync
_memcpy_batch_async.restype = ctypes.c_int


def make_attributes(order: SrcAccessOrder, prefer_overlap: bool) -> MemcpyAttributes:
    attrs = MemcpyAttributes()
    attrs.srcAccessOrder = int(order)
    attrs.flags = MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE if prefer_overlap else 0
    return attrs


def memcpy_batch_async(
    dst_ptrs: Sequence[int], src_ptrs: Sequence[int], sizes: Sequence[int],
    attrs: MemcpyAttributes, stream: torch.cuda.Stream,
) -> None:
    count = len(dst_ptrs)
    dsts = (ctypes.c_void_p * count)(*dst_ptrs)
    srcs = (ctypes.c_void_p * count)(*src_ptrs)
    nbytes = (ctypes.c_size_t * count)(*sizes)
    attrs_idxs = (ctypes.c_size_t * 1)(0)
    fail_idx = ctypes.c_size_t(0)
    # expect: KVG002
    err = _memcpy_batch_async(
        dsts, srcs, nbytes, ctypes.c_size_t(count), ctypes.byref(attrs), attrs_idxs,
        ctypes.c_size_t(1), ctypes.byref(fail_idx), ctypes.c_void_p(stream.cuda_stream),
    )
    if err != 0:
        raise RuntimeError(f"cudaMemcpyBatchAsync failed (error {err}) at copy {fail_idx.value}")
