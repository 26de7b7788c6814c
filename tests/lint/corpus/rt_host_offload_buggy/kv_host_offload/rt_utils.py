# SPDX-FileCopyrightText: Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: Apache-2.0
from typing import Optional

from cuda.bindings import runtime as cudart


def CUDA_CHECK(result):
    err, *rest = result
    if err != cudart.cudaError_t.cudaSuccess:
        _, msg = cudart.cudaGetErrorString(err)
        raise RuntimeError(f"CUDA runtime error {err}: {msg}")
    if not rest:
        return None
    return rest[0] if len(rest) == 1 else tuple(rest)


def _loc(device: Optional[int]) -> cudart.cudaMemLocation:
    loc = cudart.cudaMemLocation()
    if device is None:
        loc.type = cudart.cudaMemLocationType.cudaMemLocationTypeHost
    else:
        loc.type = cudart.cudaMemLocationType.cudaMemLocationTypeDevice
        loc.id = device
    return loc


def batch_attrs(order: int, src_device: Optional[int],
                dst_device: Optional[int]) -> cudart.cudaMemcpyAttributes:
    attr = cudart.cudaMemcpyAttributes()
    attr.srcAccessOrder = cudart.cudaMemcpySrcAccessOrder(order)
    attr.srcLocHint = _loc(src_device)
    attr.dstLocHint = _loc(dst_device)
    attr.flags = cudart.cudaMemcpyFlags.cudaMemcpyFlagPreferOverlapWithCompute
    return attr
