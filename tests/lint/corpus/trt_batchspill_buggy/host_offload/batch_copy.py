"""Thin wrapper over cuMemcpyBatchAsync for many small device->host copies."""

from typing import List

import torch
from cuda.bindings import driver

from .constants import SRC_ACCESS_ORDER


def make_d2h_attributes(device_ordinal: int) -> "driver.CUmemcpyAttributes":
    attr = driver.CUmemcpyAttributes()
    attr.srcAccessOrder = SRC_ACCESS_ORDER
    attr.srcLocHint.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    attr.srcLocHint.id = device_ordinal
    attr.dstLocHint.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST
    attr.flags = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
    return attr


def batch_copy_d2h(dst_ptrs: List[int], src_ptrs: List[int], sizes: List[int],
                   attr: "driver.CUmemcpyAttributes", stream: torch.cuda.Stream) -> None:
    count = len(sizes)
    # expect: KVG002
    err, fail_idx = driver.cuMemcpyBatchAsync(
        dst_ptrs, src_ptrs, sizes, count, [attr], [0], 1, driver.CUstream(stream.cuda_stream)
    )
    if err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"cuMemcpyBatchAsync failed at copy {fail_idx}: {err}")
