# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from typing import List

from cuda.bindings import driver

from .constants import D2H_SRC_ACCESS_ORDER, H2D_SRC_ACCESS_ORDER
from .cuda_utils import check, memcpy_attrs


def _ptrs(addrs: List[int]) -> List[driver.CUdeviceptr]:
    return [driver.CUdeviceptr(a) for a in addrs]


def batch_d2h(host_addrs: List[int], dev_addrs: List[int], nbytes: int, device_id: int,
              stream: driver.CUstream) -> None:
    count = len(dev_addrs)
    attrs = memcpy_attrs(D2H_SRC_ACCESS_ORDER, src_device=True, device_id=device_id)
    check(driver.cuMemcpyBatchAsync(_ptrs(host_addrs), _ptrs(dev_addrs), [nbytes] * count, count,
                                    [attrs], [0], 1, stream))


def batch_h2d(dev_addrs: List[int], host_addrs: List[int], nbytes: int, device_id: int,
              stream: driver.CUstream) -> None:
    count = len(dev_addrs)
    attrs = memcpy_attrs(H2D_SRC_ACCESS_ORDER, src_device=False, device_id=device_id)
    check(driver.cuMemcpyBatchAsync(_ptrs(dev_addrs), _ptrs(host_addrs), [nbytes] * count, count,
                                    [attrs], [0], 1, stream))
