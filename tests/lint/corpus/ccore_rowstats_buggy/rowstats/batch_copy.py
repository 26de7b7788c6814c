from __future__ import annotations

from typing import Sequence

from cuda.bindings import driver


def _d2h_attributes(device_ordinal: int) -> driver.CUmemcpyAttributes:
    attrs = driver.CUmemcpyAttributes()
    attrs.srcAccessOrder = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY
    attrs.srcLocHint.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    attrs.srcLocHint.id = device_ordinal
    attrs.dstLocHint.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST
    attrs.dstLocHint.id = 0
    attrs.flags = 0
    return attrs


def copy_batch_d2h(
    dsts: Sequence[int],
    srcs: Sequence[int],
    sizes: Sequence[int],
    device_ordinal: int,
    stream: driver.CUstream,
) -> None:
    """Issue all device->host copies in a single cuMemcpyBatchAsync call."""
    if not (len(dsts) == len(srcs) == len(sizes)):
        raise ValueError("dsts, srcs and sizes must have the same length")
    attrs = _d2h_attributes(device_ordinal)
    # expect: KVG002
    err, fail_idx = driver.cuMemcpyBatchAsync(
        [driver.CUdeviceptr(d) for d in dsts],
        [driver.CUdeviceptr(s) for s in srcs],
        list(sizes),
        len(sizes),
        [attrs],
        [0],
        1,
        stream,
    )
    if err != driver.CUresult.CUDA_SUCCESS:
        _, name = driver.cuGetErrorName(err)
        raise RuntimeError(f"cuMemcpyBatchAsync failed at copy {fail_idx}: {name!r}")
