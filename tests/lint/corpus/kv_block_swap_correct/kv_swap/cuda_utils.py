# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from typing import Any, Tuple

import torch
from cuda.bindings import driver


def check(result: Tuple[Any, ...]) -> Any:
    err = result[0]
    if err != driver.CUresult.CUDA_SUCCESS:
        _, name = driver.cuGetErrorName(err)
        raise RuntimeError(f"CUDA driver error: {name}")
    return result[1] if len(result) == 2 else result[1:]


def create_stream() -> driver.CUstream:
    return check(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING))


def create_event() -> driver.CUevent:
    return check(driver.cuEventCreate(driver.CUevent_flags.CU_EVENT_DISABLE_TIMING))


def torch_current_stream() -> driver.CUstream:
    return driver.CUstream(torch.cuda.current_stream().cuda_stream)


def memcpy_attrs(order, src_device: bool, device_id: int) -> driver.CUmemcpyAttributes:
    attrs = driver.CUmemcpyAttributes()
    attrs.srcAccessOrder = order
    attrs.flags = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
    device_loc = driver.CUmemLocation()
    device_loc.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    device_loc.id = device_id
    host_loc = driver.CUmemLocation()
    host_loc.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST
    attrs.srcLocHint = device_loc if src_device else host_loc
    attrs.dstLocHint = host_loc if src_device else device_loc
    return attrs
