"""Thin wrapper over the driver's batched memcpy (cuda-python bindings)."""

from typing import Sequence

from cuda.bindings import driver

DEVICE = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
HOST = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST


def _check(result):
    err, *rest = result
    if err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"cuMemcpyBatchAsync failed: {err}")
    return rest


def make_attrs(order, src_loc, dst_loc, device_id: int = 0):
    attrs = driver.CUmemcpyAttributes()
    attrs.srcAccessOrder = order
    attrs.srcLocHint.type = src_loc
    attrs.srcLocHint.id = device_id if src_loc == DEVICE else 0
    attrs.dstLocHint.type = dst_loc
    attrs.dstLocHint.id = device_id if dst_loc == DEVICE else 0
    attrs.flags = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
    return attrs


def batch_copy(dst_ptrs: Sequence[int], src_ptrs: Sequence[int], sizes: Sequence[int],
               attrs, stream_handle: int) -> None:
    n = len(sizes)
    if n == 0:
        return
    # expect: KVG002
    _check(driver.cuMemcpyBatchAsync(dst_ptrs, src_ptrs, sizes, n, [attrs], [0], 1, stream_handle))
