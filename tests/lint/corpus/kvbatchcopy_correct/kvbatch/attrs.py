# SPDX-License-Identifier: Apache-2.0
# Third Party
from cuda.bindings import driver


def _location(kind: "driver.CUmemLocationType", ordinal: int) -> "driver.CUmemLocation":
    loc = driver.CUmemLocation()
    loc.type = kind
    loc.id = ordinal
    return loc


def d2h_copy_attributes(device_ordinal: int) -> "driver.CUmemcpyAttributes":
    """Attributes shared by every copy of a device -> pinned host batch."""
    attr = driver.CUmemcpyAttributes()
    attr.srcAccessOrder = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM
    attr.srcLocHint = _location(driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE, device_ordinal)
    attr.dstLocHint = _location(driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST, 0)
    attr.flags = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
    return attr
