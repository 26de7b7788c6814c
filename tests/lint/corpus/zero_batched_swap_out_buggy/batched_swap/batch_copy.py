# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0
"""Issue many device-to-host copies with a single cuMemcpyBatchAsync."""

from typing import List, Sequence

from cuda.bindings import driver

from .constants import MAX_BATCH_COPIES, SWAP_OUT_FLAGS, SWAP_OUT_SRC_ACCESS_ORDER
from .cuda_utils import check


def _d2h_attributes() -> driver.CUmemcpyAttributes:
    attrs = driver.CUmemcpyAttributes()
    attrs.srcAccessOrder = SWAP_OUT_SRC_ACCESS_ORDER
    attrs.srcLocHint.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    attrs.dstLocHint.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST
    attrs.flags = SWAP_OUT_FLAGS
    return attrs


def batch_copy_d2h(dst_ptrs: Sequence[int], src_ptrs: Sequence[int], sizes: Sequence[int],
                   stream: driver.CUstream) -> int:
    attrs: List[driver.CUmemcpyAttributes] = [_d2h_attributes()]
    issued = 0
    for start in range(0, len(sizes), MAX_BATCH_COPIES):
        end = min(start + MAX_BATCH_COPIES, len(sizes))
        count = end - start
        dsts = [driver.CUdeviceptr(p) for p in dst_ptrs[start:end]]
        srcs = [driver.CUdeviceptr(p) for p in src_ptrs[start:end]]
        # expect: KVG002
        check(driver.cuMemcpyBatchAsync(dsts, srcs, list(sizes[start:end]), count, attrs, [0], 1, stream))
        issued += count
    return issued
