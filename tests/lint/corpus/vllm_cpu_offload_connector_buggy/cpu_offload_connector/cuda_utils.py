from __future__ import annotations

from typing import Any

from cuda.bindings import driver

from .metadata import TransferDirection


class CudaDriverError(RuntimeError):
    pass


def check(result: tuple[Any, ...]) -> Any:
    """Unwrap a cuda-python ``(CUresult, *values)`` tuple."""
    err, *values = result
    if err != driver.CUresult.CUDA_SUCCESS:
        _, name = driver.cuGetErrorName(err)
        raise CudaDriverError(f"CUDA driver call failed: {name!r}")
    if not values:
        return None
    return values[0] if len(values) == 1 else tuple(values)


def _device_location(device_id: int) -> driver.CUmemLocation:
    loc = driver.CUmemLocation()
    loc.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    loc.id = device_id
    return loc


def _host_location() -> driver.CUmemLocation:
    loc = driver.CUmemLocation()
    loc.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST
    loc.id = 0
    return loc


def build_copy_attributes(direction: TransferDirection,
                          device_id: int) -> driver.CUmemcpyAttributes:
    """Attributes shared by every copy of one batch in ``direction``."""
    attrs = driver.CUmemcpyAttributes()
    attrs.flags = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
    if direction is TransferDirection.GPU_TO_CPU:
        attrs.srcLocHint = _device_location(device_id)
        attrs.dstLocHint = _host_location()
        attrs.srcAccessOrder = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY
    else:
        attrs.srcLocHint = _host_location()
        attrs.dstLocHint = _device_location(device_id)
        attrs.srcAccessOrder = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM
    return attrs


def current_stream_handle() -> driver.CUstream:
    import torch

    return driver.CUstream(torch.cuda.current_stream().cuda_stream)
