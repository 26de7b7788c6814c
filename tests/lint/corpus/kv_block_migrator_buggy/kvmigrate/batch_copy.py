"""Helpers around ``cuMemcpyBatchAsync`` (CUDA 12.8+)."""

from __future__ import annotations

from typing import Sequence

from cuda.bindings import driver

from .constants import SrcAccessOrder


class BatchCopyError(RuntimeError):
    pass


def make_d2h_attrs(
    src_device: int, *, src_access_order: SrcAccessOrder = SrcAccessOrder.STREAM
) -> driver.CUmemcpyAttributes:
    attrs = driver.CUmemcpyAttributes()
    attrs.srcAccessOrder = driver.CUmemcpySrcAccessOrder(int(src_access_order))
    attrs.srcLocHint.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    attrs.srcLocHint.id = src_device
    attrs.dstLocHint.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST
    attrs.dstLocHint.id = 0
    attrs.flags = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
    return attrs


def as_devptrs(ptrs: Sequence[int]) -> list[driver.CUdeviceptr]:
    return [driver.CUdeviceptr(p) for p in ptrs]


def raise_on_error(err: driver.CUresult, fail_idx: int, count: int) -> None:
    if err != driver.CUresult.CUDA_SUCCESS:
        _, name = driver.cuGetErrorName(err)
        raise BatchCopyError(f"cuMemcpyBatchAsync failed at copy {fail_idx}/{count}: {name}")
