"""Thin wrapper over the driver's batched memcpy (CUDA 12.8+)."""
from typing import Sequence

from cuda.bindings import driver


def _check(result):
    err = result[0]
    if err != driver.CUresult.CUDA_SUCCESS:
        _, msg = driver.cuGetErrorString(err)
        raise RuntimeError(f"cuMemcpyBatchAsync: {msg.decode() if msg else err}")
    return result[1:]


def _location(on_host: bool, device_id: int) -> "driver.CUmemLocation":
    loc = driver.CUmemLocation()
    if on_host:
        loc.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST
    else:
        loc.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
        loc.id = device_id
    return loc


def memcpy_batch(dsts: Sequence[int], srcs: Sequence[int], sizes: Sequence[int],
                 stream_ptr: int, *, src_on_host: bool, device_id: int = 0) -> None:
    """One batched copy; every copy in the batch has the same direction.

    A pinned host source nobody writes while the copy is pending can be read by the driver
    as early as it likes, which lets it start the transfer before earlier stream work
    drains. A source in GPU memory must be read in stream order.
    """
    attrs = driver.CUmemcpyAttributes()
    attrs.srcAccessOrder = (
        driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY
        if src_on_host
        else driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM
    )
    attrs.srcLocHint = _location(src_on_host, device_id)
    attrs.dstLocHint = _location(not src_on_host, device_id)
    attrs.flags = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
    # expect: KVG002
    _check(driver.cuMemcpyBatchAsync(list(dsts), list(srcs), list(sizes), len(sizes),
                                     [attrs], [0], 1, driver.CUstream(stream_ptr)))
