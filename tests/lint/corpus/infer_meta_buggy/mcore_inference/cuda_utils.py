from typing import Any, Tuple

import torch
from cuda.bindings import driver, runtime


def check_driver(result: Tuple[Any, ...]) -> Tuple[Any, ...]:
    err = result[0]
    if err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"CUDA driver error: {driver.cuGetErrorString(err)[1]}")
    return result[1:]


def check_runtime(result: Tuple[Any, ...]) -> Tuple[Any, ...]:
    err = result[0]
    if err != runtime.cudaError_t.cudaSuccess:
        raise RuntimeError(f"CUDA runtime error: {runtime.cudaGetErrorString(err)[1]}")
    return result[1:]


def current_stream_handle() -> int:
    return torch.cuda.current_stream().cuda_stream


def driver_d2h_attributes(order, device_ordinal: int) -> driver.CUmemcpyAttributes:
    attrs = driver.CUmemcpyAttributes()
    attrs.srcAccessOrder = order
    attrs.srcLocHint.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    attrs.srcLocHint.id = device_ordinal
    attrs.dstLocHint.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST
    attrs.flags = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
    return attrs


def runtime_d2h_attributes(order: int, device_ordinal: int) -> runtime.cudaMemcpyAttributes:
    attrs = runtime.cudaMemcpyAttributes()
    attrs.srcAccessOrder = runtime.cudaMemcpySrcAccessOrder(order)
    attrs.srcLocHint.type = runtime.cudaMemLocationType.cudaMemLocationTypeDevice
    attrs.srcLocHint.id = device_ordinal
    attrs.dstLocHint.type = runtime.cudaMemLocationType.cudaMemLocationTypeHost
    return attrs
