"""Thin wrapper over the driver's batched memcpy (CUDA 12.8+)."""

from cuda.bindings import driver

ORDER_STREAM = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM
ORDER_ANY = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY


def batch_copy(dst_ptrs, src_ptrs, sizes, stream, order):
    attrs = driver.CUmemcpyAttributes()
    attrs.srcAccessOrder = order
    attrs.flags = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
    # expect: KVG001, KVG002
    result = driver.cuMemcpyBatchAsync(
        dst_ptrs, src_ptrs, sizes, len(sizes), [attrs], [0], 1, stream.cuda_stream
    )
    if result[0] != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"cuMemcpyBatchAsync failed: {result[0]}")
