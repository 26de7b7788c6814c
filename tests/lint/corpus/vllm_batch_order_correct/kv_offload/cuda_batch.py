# SPDX-License-Identifier: Apache-2.0
"""Thin helpers around cuMemcpyBatchAsync from cuda-python."""

import numpy as np
from cuda.bindings import driver

CU_MEMCPY_SRC_ACCESS_ORDER_STREAM = (
    driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM
)
CU_MEMCPY_SRC_ACCESS_ORDER_ANY = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY


def check_cu(result) -> tuple:
    err, *rest = result
    if err != driver.CUresult.CUDA_SUCCESS:
        _, msg = driver.cuGetErrorString(err)
        raise RuntimeError(f"CUDA driver error {err}: {msg}")
    return tuple(rest)


def make_memcpy_attrs(
    src_access_order, src_on_device: bool, device_id: int
) -> driver.CUmemcpyAttributes:
    attr = driver.CUmemcpyAttributes()
    attr.srcAccessOrder = src_access_order
    attr.flags = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
    device_loc = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    host_loc = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST
    attr.srcLocHint.type = device_loc if src_on_device else host_loc
    attr.srcLocHint.id = device_id if src_on_device else 0
    attr.dstLocHint.type = host_loc if src_on_device else device_loc
    attr.dstLocHint.id = 0 if src_on_device else device_id
    return attr


def as_device_ptrs(ptrs: np.ndarray) -> list[driver.CUdeviceptr]:
    return [driver.CUdeviceptr(int(p)) for p in ptrs]
