"""cuMemcpyBatchAsync through a ctypes entry point resolved once with cuGetProcAddress
(the cuda-python wrapper costs a few microseconds per descriptor)."""

import ctypes
from dataclasses import dataclass

import numpy as np
import torch
from cuda.bindings import driver as drv

SRC_ORDER_STREAM = 1
SRC_ORDER_ANY = 3


class _MemLocation(ctypes.Structure):
    _fields_ = [("type", ctypes.c_uint), ("id", ctypes.c_int)]


class _MemcpyAttributes(ctypes.Structure):
    _fields_ = [
        ("srcAccessOrder", ctypes.c_uint),
        ("srcLocHint", _MemLocation),
        ("dstLocHint", _MemLocation),
        ("flags", ctypes.c_uint),
    ]


_BATCH_FN = ctypes.CFUNCTYPE(
    ctypes.c_uint, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t,
    ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_void_p,
)
_batch_memcpy = None


def _entry_point():
    global _batch_memcpy
    if _batch_memcpy is None:
        err, ptr, _ = drv.cuGetProcAddress(b"cuMemcpyBatchAsync", 12080, 0)
        if err != drv.CUresult.CUDA_SUCCESS:
            raise RuntimeError(f"cuGetProcAddress(cuMemcpyBatchAsync) failed: {err}")
        _batch_memcpy = _BATCH_FN(ptr)
    return _batch_memcpy


@dataclass(frozen=True)
class BlockCopyPlan:
    """Per-direction constants of a block copy: one base pointer per KV tensor."""

    src_bases: np.ndarray
    dst_bases: np.ndarray
    block_bytes: np.ndarray
    attrs: _MemcpyAttributes
    stream_handle: int

    @classmethod
    def _build(cls, src: dict[str, torch.Tensor], dst: dict[str, torch.Tensor],
               stream: torch.cuda.Stream, order: int) -> "BlockCopyPlan":
        _entry_point()
        srcs, dsts = list(src.values()), list(dst.values())
        return cls(
            src_bases=np.array([t.data_ptr() for t in srcs], dtype=np.uint64),
            dst_bases=np.array([t.data_ptr() for t in dsts], dtype=np.uint64),
            block_bytes=np.array([t.stride(0) * t.element_size() for t in srcs], dtype=np.uint64),
            attrs=_MemcpyAttributes(srcAccessOrder=order),
            stream_handle=stream.cuda_stream,
        )

    @classmethod
    def for_store(cls, gpu: dict[str, torch.Tensor], cpu: dict[str, torch.Tensor],
                  stream: torch.cuda.Stream) -> "BlockCopyPlan":
        # stores only read blocks of requests the scheduler already finished, so let
        # the copy engine fetch them as early as it likes
        return cls._build(gpu, cpu, stream, SRC_ORDER_ANY)

    @classmethod
    def for_load(cls, cpu: dict[str, torch.Tensor], gpu: dict[str, torch.Tensor],
                 stream: torch.cuda.Stream) -> "BlockCopyPlan":
        # pinned host memory: no stream ever writes it while a load reads it
        return cls._build(cpu, gpu, stream, SRC_ORDER_ANY)


def copy_blocks(plan: BlockCopyPlan, src_ids: list[int], dst_ids: list[int]) -> None:
    n = len(src_ids)
    if n == 0:
        return
    s = np.asarray(src_ids, dtype=np.uint64)
    d = np.asarray(dst_ids, dtype=np.uint64)
    bpb = plan.block_bytes[:, None]
    srcs = (plan.src_bases[:, None] + s[None, :] * bpb).ravel()
    dsts = (plan.dst_bases[:, None] + d[None, :] * bpb).ravel()
    sizes = np.repeat(plan.block_bytes, n)
    fail_idx = ctypes.c_size_t(0)
    # expect: KVG001, KVG002
    err = _entry_point()(
        dsts.ctypes.data, srcs.ctypes.data, sizes.ctypes.data, len(sizes),
        ctypes.addressof(plan.attrs), ctypes.byref(ctypes.c_size_t(0)), 1,
        ctypes.byref(fail_idx), plan.stream_handle,
    )
    if err != 0:
        raise RuntimeError(f"cuMemcpyBatchAsync failed: {err} at descriptor {fail_idx.value}")
