"""Many small tensor copies in one driver call (CUDA 12.8+ cuMemcpyBatchAsync)."""

from cuda.bindings import driver

ORDER_STREAM = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM
ORDER_ANY = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY


def _check(result):
    err = result[0]
    if err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"cuMemcpyBatchAsync failed: {err}")
    return result[1:]


def batch_copy(dst_ptrs, src_ptrs, sizes, stream, src_order=ORDER_ANY):
    """Copy sizes[i] bytes from src_ptrs[i] to dst_ptrs[i] on `stream` (a torch stream)."""
    count = len(sizes)
    if count == 0:
        return
    attrs = driver.CUmemcpyAttributes()
    attrs.srcAccessOrder = src_order
    attrs.flags = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
    # expect: KVG002
    _check(driver.cuMemcpyBatchAsync(dst_ptrs, src_ptrs, sizes, count, [attrs], [0], 1,
                                     driver.CUstream(stream.cuda_stream)))
