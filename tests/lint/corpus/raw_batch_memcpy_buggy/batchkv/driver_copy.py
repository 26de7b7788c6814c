"""cuMemcpyBatchAsync wrapper with a reusable attribute builder."""

from cuda.bindings import driver as cuda


def _check(result):
    err = result[0]
    if err != cuda.CUresult.CUDA_SUCCESS:
        _, name = cuda.cuGetErrorName(err)
        raise RuntimeError(f"cuMemcpyBatchAsync failed: {name}")
    return result[1:]


def make_attrs(src_order=cuda.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY):
    attrs = cuda.CUmemcpyAttributes()
    attrs.srcAccessOrder = src_order
    attrs.flags = cuda.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
    return attrs


def batch_copy(dst_ptrs, src_ptrs, sizes, stream_handle, src_order=None):
    attrs = make_attrs() if src_order is None else make_attrs(src_order)
    # expect: KVG002
    _check(cuda.cuMemcpyBatchAsync(dst_ptrs, src_ptrs, sizes, len(sizes), [attrs], [0], 1, stream_handle))
