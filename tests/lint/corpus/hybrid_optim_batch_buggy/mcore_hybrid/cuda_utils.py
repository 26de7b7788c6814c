# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
"""Helpers over cuda.bindings.driver used by the hybrid optimizer."""
from typing import Sequence

from cuda.bindings import driver


def check(result):
    err = result[0]
    if err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"CUDA driver call failed: {err}")
    if len(result) == 1:
        return None
    return result[1] if len(result) == 2 else result[1:]


def driver_version() -> int:
    return check(driver.cuDriverGetVersion())


def create_stream() -> driver.CUstream:
    return check(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING.value))


def create_event() -> driver.CUevent:
    return check(driver.cuEventCreate(driver.CUevent_flags.CU_EVENT_DISABLE_TIMING.value))


def order_after(waiter: driver.CUstream, producer: driver.CUstream, event: driver.CUevent) -> None:
    check(driver.cuEventRecord(event, producer))
    check(driver.cuStreamWaitEvent(waiter, event, 0))


def _location(on_device: bool, device_id: int) -> driver.CUmemLocation:
    loc = driver.CUmemLocation()
    if on_device:
        loc.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
        loc.id = device_id
    else:
        loc.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST
        loc.id = 0
    return loc


def make_copy_attributes(src_access_order, device_id: int, src_on_device: bool) -> driver.CUmemcpyAttributes:
    attrs = driver.CUmemcpyAttributes()
    attrs.srcAccessOrder = src_access_order
    attrs.srcLocHint = _location(src_on_device, device_id)
    attrs.dstLocHint = _location(not src_on_device, device_id)
    attrs.flags = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
    return attrs


def batch_copy(dsts: Sequence[int], srcs: Sequence[int], sizes: Sequence[int], attrs: driver.CUmemcpyAttributes,
               stream: driver.CUstream) -> None:
    count = len(sizes)
    # expect: KVG002
    check(driver.cuMemcpyBatchAsync(list(dsts), list(srcs), list(sizes), count, [attrs], [0], 1, stream))
