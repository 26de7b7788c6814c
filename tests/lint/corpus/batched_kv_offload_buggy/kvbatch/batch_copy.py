# SPDX-License-Identifier: Apache-2.0
# Standard
from typing import List

# Third Party
from cuda.bindings import driver

# First Party
from kvbatch.constants import D2H_COPY_FLAGS, D2H_SRC_ACCESS_ORDER, MAX_COPIES_PER_BATCH
from kvbatch.cuda_utils import check


def make_d2h_attributes(device_ordinal: int) -> driver.CUmemcpyAttributes:
    src_loc = driver.CUmemLocation()
    src_loc.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    src_loc.id = device_ordinal
    dst_loc = driver.CUmemLocation()
    dst_loc.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST
    dst_loc.id = 0

    attrs = driver.CUmemcpyAttributes()
    attrs.srcAccessOrder = D2H_SRC_ACCESS_ORDER
    attrs.srcLocHint = src_loc
    attrs.dstLocHint = dst_loc
    attrs.flags = D2H_COPY_FLAGS
    return attrs


def batched_d2h(
    dst_ptrs: List[int],
    src_ptrs: List[int],
    sizes: List[int],
    attrs: driver.CUmemcpyAttributes,
    stream: driver.CUstream,
) -> None:
    for begin in range(0, len(sizes), MAX_COPIES_PER_BATCH):
        end = min(begin + MAX_COPIES_PER_BATCH, len(sizes))
        dsts = [driver.CUdeviceptr(p) for p in dst_ptrs[begin:end]]
        srcs = [driver.CUdeviceptr(p) for p in src_ptrs[begin:end]]
        # expect: KVG002
        check(driver.cuMemcpyBatchAsync(dsts, srcs, sizes[begin:end], end - begin, [attrs], [0], 1, stream))
