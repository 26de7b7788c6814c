from cuda.bindings import driver

from kv_offload.constants import COPY_FLAGS


def check_cu(result):
    err = result[0]
    if err != driver.CUresult.CUDA_SUCCESS:
        _, name = driver.cuGetErrorName(err)
        raise RuntimeError(f"CUDA driver error {name!r} ({int(err)})")
    return result[1] if len(result) > 1 else None


def create_stream() -> driver.CUstream:
    return check_cu(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING))


def create_event() -> driver.CUevent:
    return check_cu(driver.cuEventCreate(driver.CUevent_flags.CU_EVENT_DISABLE_TIMING))


def order_after(event: driver.CUevent, upstream, stream: driver.CUstream) -> None:
    """Everything later enqueued on `stream` runs after the work already enqueued on `upstream`."""
    check_cu(driver.cuEventRecord(event, upstream))
    check_cu(driver.cuStreamWaitEvent(stream, event, 0))


def make_memcpy_attrs(src_access_order, src_type, dst_type, device_id: int) -> driver.CUmemcpyAttributes:
    attrs = driver.CUmemcpyAttributes()
    attrs.srcAccessOrder = src_access_order
    attrs.srcLocHint.type = src_type
    attrs.srcLocHint.id = device_id
    attrs.dstLocHint.type = dst_type
    attrs.dstLocHint.id = device_id
    attrs.flags = COPY_FLAGS
    return attrs
