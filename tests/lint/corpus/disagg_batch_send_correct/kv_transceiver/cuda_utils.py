# SPDX-FileCopyrightText: Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: Apache-2.0
from typing import Optional

from cuda.bindings import driver


def cu_check(result):
    err, *rest = result
    if err != driver.CUresult.CUDA_SUCCESS:
        _, name = driver.cuGetErrorName(err)
        raise RuntimeError(f"CUDA driver call failed: {name}")
    if not rest:
        return None
    return rest[0] if len(rest) == 1 else tuple(rest)


def _location(device: Optional[int]) -> driver.CUmemLocation:
    loc = driver.CUmemLocation()
    if device is None:
        loc.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST
        loc.id = 0
    else:
        loc.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
        loc.id = device
    return loc


def make_copy_attrs(src_access_order, src_device: Optional[int],
                    dst_device: Optional[int]) -> driver.CUmemcpyAttributes:
    attrs = driver.CUmemcpyAttributes()
    attrs.srcAccessOrder = src_access_order
    attrs.srcLocHint = _location(src_device)
    attrs.dstLocHint = _location(dst_device)
    attrs.flags = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
    return attrs
