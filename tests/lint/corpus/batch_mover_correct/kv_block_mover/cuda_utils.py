from cuda.bindings import driver

from .constants import EVENT_FLAGS, STREAM_FLAGS


def check(result):
    """Unwrap a cuda-python return tuple, raising on a non-success CUresult."""
    err, *rest = result
    if err != driver.CUresult.CUDA_SUCCESS:
        _, name = driver.cuGetErrorName(err)
        raise RuntimeError(f"CUDA driver error: {name.decode() if name else err}")
    if not rest:
        return None
    return rest[0] if len(rest) == 1 else tuple(rest)


def new_stream() -> driver.CUstream:
    return check(driver.cuStreamCreate(STREAM_FLAGS))


def new_event() -> driver.CUevent:
    return check(driver.cuEventCreate(EVENT_FLAGS))


def make_attrs(order, src_type, dst_type, device_ordinal: int) -> driver.CUmemcpyAttributes:
    attrs = driver.CUmemcpyAttributes()
    attrs.srcAccessOrder = order
    attrs.srcLocHint.type = src_type
    attrs.srcLocHint.id = device_ordinal
    attrs.dstLocHint.type = dst_type
    attrs.dstLocHint.id = device_ordinal
    attrs.flags = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
    return attrs
