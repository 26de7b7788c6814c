# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from typing import Any

import torch
from cuda.bindings import driver


def check_cu(result: Any) -> Any:
    """Unwraps a ``(CUresult, *values)`` tuple returned by cuda.bindings."""
    err, *values = result
    if err != driver.CUresult.CUDA_SUCCESS:
        _, name = driver.cuGetErrorName(err)
        raise RuntimeError(f"CUDA driver call failed: {name}")
    if not values:
        return None
    return values[0] if len(values) == 1 else tuple(values)


def torch_current_cu_stream() -> driver.CUstream:
    return driver.CUstream(torch.cuda.current_stream().cuda_stream)


def create_copy_stream() -> driver.CUstream:
    return check_cu(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING.value))


def create_event() -> driver.CUevent:
    return check_cu(driver.cuEventCreate(driver.CUevent_flags.CU_EVENT_DISABLE_TIMING.value))


def order_after(consumer: driver.CUstream, producer: driver.CUstream, event: driver.CUevent) -> None:
    """Makes work later submitted to ``consumer`` wait for work already in ``producer``."""
    check_cu(driver.cuEventRecord(event, producer))
    check_cu(driver.cuStreamWaitEvent(consumer, event, 0))


def make_memcpy_attributes(src_access_order, src_on_device: bool, device_ordinal: int) -> driver.CUmemcpyAttributes:
    device_loc = driver.CUmemLocation()
    device_loc.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    device_loc.id = device_ordinal
    host_loc = driver.CUmemLocation()
    host_loc.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST
    attrs = driver.CUmemcpyAttributes()
    attrs.srcAccessOrder = src_access_order
    attrs.srcLocHint = device_loc if src_on_device else host_loc
    attrs.dstLocHint = host_loc if src_on_device else device_loc
    attrs.flags = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
    return attrs
