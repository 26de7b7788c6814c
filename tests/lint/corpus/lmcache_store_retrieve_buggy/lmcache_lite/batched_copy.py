from __future__ import annotations

from typing import Sequence

from cuda.bindings import driver


class CudaDriverError(RuntimeError):
    pass


def _check(result):
    err, *rest = result
    if err != driver.CUresult.CUDA_SUCCESS:
        _, name = driver.cuGetErrorName(err)
        raise CudaDriverError(f"CUDA driver call failed: {name}")
    return rest[0] if len(rest) == 1 else rest


def _copy_attributes() -> driver.CUmemcpyAttributes:
    attrs = driver.CUmemcpyAttributes()
    attrs.srcAccessOrder = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY
    attrs.flags = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
    return attrs


def batched_memcpy_async(dsts: Sequence[int], srcs: Sequence[int], sizes: Sequence[int], cuda_stream: int) -> None:
    """Issue all ``(dst, src, size)`` copies with a single cuMemcpyBatchAsync."""
    count = len(sizes)
    if count == 0:
        return
    attrs = _copy_attributes()
    _check(
        # expect: KVG002
        driver.cuMemcpyBatchAsync(
            [driver.CUdeviceptr(p) for p in dsts],
            [driver.CUdeviceptr(p) for p in srcs],
            list(sizes),
            count,
            [attrs],
            [0],
            1,
            driver.CUstream(cuda_stream),
        )
    )
