from __future__ import annotations

from cuda.bindings import driver


def check(result):
    err = result[0]
    if err != driver.CUresult.CUDA_SUCCESS:
        _, name = driver.cuGetErrorName(err)
        raise RuntimeError(f"CUDA driver call failed: {name}")
    return result[1] if len(result) == 2 else result[1:]


def create_stream() -> driver.CUstream:
    return check(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING))


def create_event() -> driver.CUevent:
    return check(driver.cuEventCreate(driver.CUevent_flags.CU_EVENT_DISABLE_TIMING))


def event_done(event: driver.CUevent) -> bool:
    (err,) = driver.cuEventQuery(event)
    if err == driver.CUresult.CUDA_ERROR_NOT_READY:
        return False
    check((err,))
    return True


def make_memcpy_attrs(
    src_order: int, src_on_device: bool, device_id: int, prefer_overlap: bool
) -> driver.CUmemcpyAttributes:
    device_loc = driver.CUmemLocation()
    device_loc.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    device_loc.id = device_id
    host_loc = driver.CUmemLocation()
    host_loc.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST
    attrs = driver.CUmemcpyAttributes()
    attrs.srcAccessOrder = driver.CUmemcpySrcAccessOrder(src_order)
    attrs.srcLocHint = device_loc if src_on_device else host_loc
    attrs.dstLocHint = host_loc if src_on_device else device_loc
    if prefer_overlap:
        attrs.flags = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
    return attrs
