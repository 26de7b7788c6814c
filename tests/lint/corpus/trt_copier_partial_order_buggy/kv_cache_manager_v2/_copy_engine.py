"""Batched block copies between cache tiers with cuMemcpyBatchAsync. One copier per
(destination tier, source tier) pair; each binds the source access order it may use."""

import enum
import functools
from typing import Callable, NamedTuple, Sequence

import cuda.bindings.driver as drv

from ._utils import _unwrap

_Order = drv.CUmemcpySrcAccessOrder


class CacheTier(enum.IntEnum):
    GPU_MEM = 0
    HOST_MEM = 1


class CopyTask(NamedTuple):
    dst: int
    src: int


def _batch_copy(tasks: Sequence[CopyTask], num_bytes: int, stream: drv.CUstream, *,
                src_order: drv.CUmemcpySrcAccessOrder) -> None:
    if not tasks:
        return
    attrs = drv.CUmemcpyAttributes()
    attrs.srcAccessOrder = src_order
    attrs.flags = drv.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
    dsts = [drv.CUdeviceptr(t.dst) for t in tasks]
    srcs = [drv.CUdeviceptr(t.src) for t in tasks]
    sizes = [num_bytes] * len(tasks)
    # expect: KVG002
    _unwrap(drv.cuMemcpyBatchAsync(dsts, srcs, sizes, len(tasks), [attrs], [0], 1, stream))


# Evicted blocks are no longer referenced by any sequence, so nothing writes them: let
# the copy engine fetch them as early as it likes.
_copy_gpu_to_host = functools.partial(_batch_copy, src_order=_Order.CU_MEMCPY_SRC_ACCESS_ORDER_ANY)
_copy_host_to_gpu = functools.partial(_batch_copy, src_order=_Order.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM)
_copy_gpu_to_gpu = functools.partial(_batch_copy, src_order=_Order.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM)

Copier = Callable[[Sequence[CopyTask], int, drv.CUstream], None]

_COPIERS = {
    (CacheTier.HOST_MEM, CacheTier.GPU_MEM): _copy_gpu_to_host,
    (CacheTier.GPU_MEM, CacheTier.HOST_MEM): _copy_host_to_gpu,
    (CacheTier.GPU_MEM, CacheTier.GPU_MEM): _copy_gpu_to_gpu,
}


def batched_copy(dst_tier: CacheTier, src_tier: CacheTier, num_bytes: int,
                 tasks: Sequence[CopyTask], stream: drv.CUstream) -> None:
    _COPIERS[(dst_tier, src_tier)](tasks, num_bytes, stream)
