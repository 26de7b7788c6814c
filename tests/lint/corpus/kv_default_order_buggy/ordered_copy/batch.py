"""A thin wrapper over cuda-python's ``cuMemcpyBatchAsync`` for block copies between two
cache tensors. The source access order is a keyword with a default. Bug: the default is ANY,
and the store path relies on it, so a GPU source may be read out of stream order."""

from cuda.bindings import driver as drv


def block_addresses(cache, blocks):
    nbytes = cache.stride(0) * cache.element_size()
    base = cache.data_ptr()
    return [base + b * nbytes for b in blocks], [nbytes] * len(blocks)


def copy_cache_blocks(
    src_cache,
    src_blocks,
    dst_cache,
    dst_blocks,
    stream,
    src_access_order=drv.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY,
):
    srcs, sizes = block_addresses(src_cache, src_blocks)
    dsts, _ = block_addresses(dst_cache, dst_blocks)
    attrs = drv.CUmemcpyAttributes()
    attrs.srcAccessOrder = src_access_order
    # expect: KVG002
    (err,) = drv.cuMemcpyBatchAsync(dsts, srcs, sizes, len(srcs), [attrs], [0], 1, stream.cuda_stream)
    if err != drv.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"cuMemcpyBatchAsync: {err}")
