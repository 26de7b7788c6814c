"""Thin helpers over `cuda.bindings.driver` used for host swapping of KV blocks."""

from cuda.bindings import driver

SWAP_SRC_ACCESS_ORDER = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM


class CudaDriverError(RuntimeError):
    pass


def check(result):
    err, *rest = result
    if err != driver.CUresult.CUDA_SUCCESS:
        _, name = driver.cuGetErrorName(err)
        raise CudaDriverError(f"CUDA driver call failed: {name}")
    if not rest:
        return None
    return rest[0] if len(rest) == 1 else tuple(rest)


def create_stream() -> driver.CUstream:
    return check(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING))


def create_event() -> driver.CUevent:
    return check(driver.cuEventCreate(driver.CUevent_flags.CU_EVENT_DISABLE_TIMING))


def order_after(event: driver.CUevent, producer: driver.CUstream, consumer: driver.CUstream) -> None:
    """Makes all work later submitted to `consumer` start after work already submitted to `producer`."""
    check(driver.cuEventRecord(event, producer))
    check(driver.cuStreamWaitEvent(consumer, event, 0))


def d2h_copy_attributes(device_ordinal: int) -> driver.CUmemcpyAttributes:
    attrs = driver.CUmemcpyAttributes()
    attrs.srcAccessOrder = SWAP_SRC_ACCESS_ORDER
    attrs.srcLocHint.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    attrs.srcLocHint.id = device_ordinal
    attrs.dstLocHint.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST
    attrs.flags = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
    return attrs
