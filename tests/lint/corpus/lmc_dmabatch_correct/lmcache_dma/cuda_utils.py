# SPDX-License-Identifier: Apache-2.0
# Standard
from typing import Any

# Third Party
from cuda.bindings import driver


def checkCudaErrors(result: tuple) -> Any:
    err, *rest = result
    if err != driver.CUresult.CUDA_SUCCESS:
        _, name = driver.cuGetErrorName(err)
        raise RuntimeError(f"CUDA driver error {int(err)}: {name}")
    if not rest:
        return None
    return rest[0] if len(rest) == 1 else tuple(rest)


def create_stream() -> driver.CUstream:
    return checkCudaErrors(
        driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING.value)
    )


def create_event() -> driver.CUevent:
    return checkCudaErrors(
        driver.cuEventCreate(driver.CUevent_flags.CU_EVENT_DISABLE_TIMING.value)
    )


def make_attrs(order, device_id: int, flags) -> driver.CUmemcpyAttributes:
    attrs = driver.CUmemcpyAttributes()
    attrs.srcAccessOrder = order
    attrs.srcLocHint.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    attrs.srcLocHint.id = device_id
    attrs.dstLocHint.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST
    attrs.flags = flags
    return attrs
