from __future__ import annotations

from typing import Any

from cuda.bindings import driver


def check_cuda(result: tuple) -> Any:
    err = result[0]
    if err != driver.CUresult.CUDA_SUCCESS:
        _, name = driver.cuGetErrorName(err)
        raise RuntimeError(f"CUDA driver error: {name}")
    if len(result) == 1:
        return None
    return result[1] if len(result) == 2 else result[1:]


def _location(host: bool, device_id: int) -> driver.CUmemLocation:
    loc = driver.CUmemLocation()
    if host:
        loc.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST
    else:
        loc.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
        loc.id = device_id
    return loc


def make_copy_attributes(
    src_access_order: driver.CUmemcpySrcAccessOrder, src_on_host: bool, device_id: int
) -> driver.CUmemcpyAttributes:
    attr = driver.CUmemcpyAttributes()
    attr.srcAccessOrder = src_access_order
    attr.srcLocHint = _location(src_on_host, device_id)
    attr.dstLocHint = _location(not src_on_host, device_id)
    attr.flags = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
    return attr
