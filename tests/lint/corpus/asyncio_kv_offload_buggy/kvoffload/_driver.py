"""Thin wrappers over cuMemcpyBatchAsync (CUDA 12.8+)."""

from __future__ import annotations

from typing import Any, Sequence

from cuda.bindings import driver

ORDER_STREAM = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM
ORDER_ANY = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY


def _check(result: Any) -> Any:
    err, *rest = result if isinstance(result, tuple) else (result,)
    if err != driver.CUresult.CUDA_SUCCESS:
        _, msg = driver.cuGetErrorString(err)
        raise RuntimeError(f"CUDA driver error {err}: {msg.decode() if msg else '?'}")
    return rest


def make_copy_attrs(device: int, *, src_access_order: driver.CUmemcpySrcAccessOrder) -> driver.CUmemcpyAttributes:
    attrs = driver.CUmemcpyAttributes()
    attrs.srcAccessOrder = src_access_order
    attrs.srcLocHint.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    attrs.srcLocHint.id = device
    attrs.dstLocHint.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST
    attrs.flags = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
    return attrs


def batch_copy(
    dsts: Sequence[int],
    srcs: Sequence[int],
    sizes: Sequence[int],
    attrs: driver.CUmemcpyAttributes,
    stream_handle: int,
) -> None:
    """One ``cuMemcpyBatchAsync`` with a single attribute set applying to every copy."""
    _check(
        # expect: KVG002
        driver.cuMemcpyBatchAsync(
            [driver.CUdeviceptr(p) for p in dsts],
            [driver.CUdeviceptr(p) for p in srcs],
            list(sizes),
            len(sizes),
            [attrs],
            [0],
            1,
            driver.CUstream(stream_handle),
        )
    )
