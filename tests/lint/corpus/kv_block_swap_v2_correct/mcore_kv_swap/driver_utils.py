from typing import Any

from cuda.bindings import driver


class CudaDriverError(RuntimeError):
    pass


def check_cuda(result: Any):
    """Unpack a cuda.bindings return tuple, raising on a non-success status."""
    err, *rest = result if isinstance(result, tuple) else (result,)
    if err != driver.CUresult.CUDA_SUCCESS:
        _, name = driver.cuGetErrorName(err)
        raise CudaDriverError(f"CUDA driver call failed: {name}")
    if not rest:
        return None
    return rest[0] if len(rest) == 1 else tuple(rest)


def make_memcpy_attributes(src_access_order, src_on_host: bool, device_ordinal: int) -> driver.CUmemcpyAttributes:
    host = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST
    device = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    attr = driver.CUmemcpyAttributes()
    attr.srcAccessOrder = src_access_order
    attr.srcLocHint.type = host if src_on_host else device
    attr.srcLocHint.id = 0 if src_on_host else device_ordinal
    attr.dstLocHint.type = device if src_on_host else host
    attr.dstLocHint.id = device_ordinal if src_on_host else 0
    attr.flags = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
    return attr


def create_event() -> driver.CUevent:
    return check_cuda(driver.cuEventCreate(driver.CUevent_flags.CU_EVENT_DISABLE_TIMING))


def as_stream(handle: int) -> driver.CUstream:
    return driver.CUstream(handle)
