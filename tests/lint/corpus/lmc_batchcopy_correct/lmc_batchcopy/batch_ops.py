# SPDX-License-Identifier: Apache-2.0
# Standard
from typing import List, Sequence

# Third Party
from cuda.bindings import driver

# First Party
from lmc_batchcopy.constants import KV_MEMCPY_FLAGS, MAX_COPIES_PER_BATCH
from lmc_batchcopy.cuda_utils import check


def build_d2h_attrs(device_ordinal: int, src_order) -> driver.CUmemcpyAttributes:
    attrs = driver.CUmemcpyAttributes()
    attrs.srcAccessOrder = src_order
    src_loc = driver.CUmemLocation()
    src_loc.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    src_loc.id = device_ordinal
    dst_loc = driver.CUmemLocation()
    dst_loc.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST
    dst_loc.id = 0
    attrs.srcLocHint = src_loc
    attrs.dstLocHint = dst_loc
    attrs.flags = KV_MEMCPY_FLAGS
    return attrs


def batched_copy(
    dst_ptrs: Sequence[int],
    src_ptrs: Sequence[int],
    sizes: Sequence[int],
    attrs: driver.CUmemcpyAttributes,
    stream: driver.CUstream,
) -> None:
    for lo in range(0, len(sizes), MAX_COPIES_PER_BATCH):
        hi = min(lo + MAX_COPIES_PER_BATCH, len(sizes))
        dsts: List[driver.CUdeviceptr] = [driver.CUdeviceptr(p) for p in dst_ptrs[lo:hi]]
        srcs: List[driver.CUdeviceptr] = [driver.CUdeviceptr(p) for p in src_ptrs[lo:hi]]
        check(driver.cuMemcpyBatchAsync(dsts, srcs, list(sizes[lo:hi]), hi - lo, [attrs], [0], 1, stream))
