# SPDX-License-Identifier: Apache-2.0
"""Thin helpers over cuda-python's driver bindings used by the offload worker."""
from typing import List

from cuda.bindings import driver

from vllm.logger import init_logger

logger = init_logger(__name__)


def check_cu(result):
    err = result[0]
    if err != driver.CUresult.CUDA_SUCCESS:
        _, name = driver.cuGetErrorName(err)
        raise RuntimeError(f"CUDA driver call failed: {name}")
    return result[1] if len(result) == 2 else result[1:]


class DriverStreamPool:
    def __init__(self):
        self._free: List[driver.CUstream] = []

    def acquire(self) -> driver.CUstream:
        if self._free:
            return self._free.pop()
        flags = driver.CUstream_flags.CU_STREAM_NON_BLOCKING
        return check_cu(driver.cuStreamCreate(flags))

    def release(self, stream: driver.CUstream) -> None:
        self._free.append(stream)


class DriverEventPool:
    def __init__(self):
        self._free: List[driver.CUevent] = []

    def acquire(self) -> driver.CUevent:
        if self._free:
            return self._free.pop()
        flags = driver.CUevent_flags.CU_EVENT_DISABLE_TIMING
        return check_cu(driver.cuEventCreate(flags))

    def release(self, event: driver.CUevent) -> None:
        self._free.append(event)


def make_memcpy_attrs(src_on_device: bool, device_id: int,
                      prefer_overlap: bool) -> driver.CUmemcpyAttributes:
    attrs = driver.CUmemcpyAttributes()
    device_loc = driver.CUmemLocation()
    device_loc.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    device_loc.id = device_id
    host_loc = driver.CUmemLocation()
    host_loc.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST
    attrs.srcLocHint = device_loc if src_on_device else host_loc
    attrs.dstLocHint = host_loc if src_on_device else device_loc
    attrs.srcAccessOrder = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM
    if prefer_overlap:
        attrs.flags = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
    else:
        attrs.flags = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_DEFAULT
    return attrs
