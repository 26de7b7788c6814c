# SPDX-License-Identifier: Apache-2.0
# Standard
from typing import Any

# Third Party
from cuda.bindings import driver

# First Party
from kvstage.constants import MEMCPY_FLAGS


def check(result: Any) -> Any:
    err, *rest = result
    if err != driver.CUresult.CUDA_SUCCESS:
        _, name = driver.cuGetErrorName(err)
        raise RuntimeError(f"CUDA driver call failed: {name}")
    if not rest:
        return None
    return rest[0] if len(rest) == 1 else tuple(rest)


def create_stream() -> driver.CUstream:
    return check(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING))


def create_event() -> driver.CUevent:
    return check(driver.cuEventCreate(driver.CUevent_flags.CU_EVENT_DISABLE_TIMING))


def _location(loc_type: driver.CUmemLocationType, device_id: int) -> driver.CUmemLocation:
    loc = driver.CUmemLocation()
    loc.type = loc_type
    loc.id = device_id
    return loc


def make_memcpy_attrs(
    order: driver.CUmemcpySrcAccessOrder,
    src_type: driver.CUmemLocationType,
    dst_type: driver.CUmemLocationType,
    device_id: int,
) -> driver.CUmemcpyAttributes:
    attrs = driver.CUmemcpyAttributes()
    attrs.srcAccessOrder = order
    attrs.srcLocHint = _location(src_type, device_id)
    attrs.dstLocHint = _location(dst_type, device_id)
    attrs.flags = MEMCPY_FLAGS
    return attrs
