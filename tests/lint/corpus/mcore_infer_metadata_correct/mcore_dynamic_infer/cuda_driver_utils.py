# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from typing import Any

import torch
from cuda.bindings import driver


def check(result: Any) -> Any:
    """Raises on a failing CUresult and unwraps the remaining return values."""
    if isinstance(result, tuple):
        err, rest = result[0], result[1:]
    else:
        err, rest = result, ()
    if err != driver.CUresult.CUDA_SUCCESS:
        _, name = driver.cuGetErrorName(err)
        raise RuntimeError(f"CUDA driver call failed: {name}")
    if len(rest) == 1:
        return rest[0]
    return rest


def create_stream() -> driver.CUstream:
    return check(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING.value))


def create_event() -> driver.CUevent:
    return check(driver.cuEventCreate(driver.CUevent_flags.CU_EVENT_DISABLE_TIMING.value))


def as_cu_stream(stream: torch.cuda.Stream) -> driver.CUstream:
    return driver.CUstream(stream.cuda_stream)


def tensor_ptr(tensor: torch.Tensor) -> driver.CUdeviceptr:
    return driver.CUdeviceptr(tensor.data_ptr())


def device_to_host_attributes(order, flags, device_ordinal: int) -> driver.CUmemcpyAttributes:
    attrs = driver.CUmemcpyAttributes()
    attrs.srcAccessOrder = order
    attrs.srcLocHint.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    attrs.srcLocHint.id = device_ordinal
    attrs.dstLocHint.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST
    attrs.flags = flags
    return attrs
