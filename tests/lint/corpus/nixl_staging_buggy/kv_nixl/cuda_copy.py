# SPDX-License-Identifier: Apache-2.0
"""Thin wrappers over cuda.bindings.driver used by the NIXL host path."""

from typing import List, Sequence

from cuda.bindings import driver


def check(result) -> tuple:
    err = result[0]
    if err != driver.CUresult.CUDA_SUCCESS:
        _, name = driver.cuGetErrorName(err)
        raise RuntimeError(f"CUDA driver call failed: {name}")
    return result[1:]


def create_event() -> driver.CUevent:
    (event,) = check(driver.cuEventCreate(driver.CUevent_flags.CU_EVENT_DISABLE_TIMING))
    return event


def create_stream() -> driver.CUstream:
    (stream,) = check(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING))
    return stream


def _d2h_attributes(device_id: int) -> driver.CUmemcpyAttributes:
    attr = driver.CUmemcpyAttributes()
    attr.srcAccessOrder = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY
    attr.srcLocHint.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    attr.srcLocHint.id = device_id
    attr.dstLocHint.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST
    attr.flags = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
    return attr


def batch_copy_d2h(
    dsts: List[int], srcs: List[int], sizes: List[int], device_id: int, stream: driver.CUstream
) -> None:
    if not sizes:
        return
    attr = _d2h_attributes(device_id)
    dst_ptrs = [driver.CUdeviceptr(d) for d in dsts]
    src_ptrs = [driver.CUdeviceptr(s) for s in srcs]
    # expect: KVG002
    result = driver.cuMemcpyBatchAsync(
        dst_ptrs, src_ptrs, sizes, len(sizes), [attr], [0], 1, stream
    )
    check(result)


def copy_h2d_regions(
    dsts: Sequence[int], srcs: Sequence[int], sizes: Sequence[int], stream: driver.CUstream
) -> None:
    for dst, src, nbytes in zip(dsts, srcs, sizes):
        # expect: KVG004
        check(driver.cuMemcpyHtoDAsync(driver.CUdeviceptr(dst), src, nbytes, stream))
