# SPDX-License-Identifier: Apache-2.0
# Standard
from typing import List, Sequence

# Third Party
from cuda.bindings import driver

# First Party
from kvstage.cuda_utils import check


def _ptrs(addrs: Sequence[int]) -> List[driver.CUdeviceptr]:
    return [driver.CUdeviceptr(a) for a in addrs]


def copy_blocks_to_host(
    host_ptrs: Sequence[int],
    dev_ptrs: Sequence[int],
    sizes: List[int],
    attrs: List[driver.CUmemcpyAttributes],
    stream: driver.CUstream,
) -> None:
    dsts, srcs = _ptrs(host_ptrs), _ptrs(dev_ptrs)
    result = driver.cuMemcpyBatchAsync(dsts, srcs, sizes, len(sizes), attrs, [0], len(attrs), stream)
    check(result)


def copy_blocks_from_host(
    dev_ptrs: Sequence[int],
    host_ptrs: Sequence[int],
    sizes: List[int],
    attrs: List[driver.CUmemcpyAttributes],
    stream: driver.CUstream,
) -> None:
    dsts, srcs = _ptrs(dev_ptrs), _ptrs(host_ptrs)
    result = driver.cuMemcpyBatchAsync(dsts, srcs, sizes, len(sizes), attrs, [0], len(attrs), stream)
    check(result)
