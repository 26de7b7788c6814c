"""Batched chunk moves through the driver's cuMemcpyBatchAsync (CUDA 12.8+)."""

from cuda.bindings import driver

ORDER_STREAM = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM
ORDER_ANY = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY


def batch_memcpy(dst_ptrs, src_ptrs, sizes, stream, src_order):
    attrs = driver.CUmemcpyAttributes()
    attrs.srcAccessOrder = src_order
    # expect: KVG004, KVG002
    err, fail_idx = driver.cuMemcpyBatchAsync(
        dst_ptrs, src_ptrs, sizes, len(sizes), [attrs], [0], 1, stream.cuda_stream
    )
    if err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"cuMemcpyBatchAsync failed at copy {fail_idx}: {err}")
