from cuda.bindings import driver

from kv_batch_xfer.constants import (
    CU_MEMCPY_FLAG_DEFAULT,
    CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE,
    CU_MEMCPY_SRC_ACCESS_ORDER_STREAM,
)


def _location(loc_type, loc_id: int):
    loc = driver.CUmemLocation()
    loc.type = loc_type
    loc.id = loc_id
    return loc


def device_to_host_attributes(device_ordinal: int, prefer_overlap: bool):
    attr = driver.CUmemcpyAttributes()
    attr.srcAccessOrder = driver.CUmemcpySrcAccessOrder(CU_MEMCPY_SRC_ACCESS_ORDER_STREAM)
    attr.srcLocHint = _location(driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE, device_ordinal)
    attr.dstLocHint = _location(driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST, 0)
    attr.flags = CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE if prefer_overlap else CU_MEMCPY_FLAG_DEFAULT
    return attr
