"""Batch block copies through cuda-python's driver bindings (``cuMemcpyBatchAsync``), in the
shape of a vLLM-style CPU offload connector's memory helpers: per-layer base pointers, one
attributes entry per batch, the stream handle of a torch side stream. The copy attributes
themselves are built by the copy thread (see copy_thread.py)."""

from cuda.bindings import driver as drv


def make_attrs(order):
    attrs = drv.CUmemcpyAttributes()
    attrs.srcAccessOrder = order
    return attrs


def block_pointers(caches, blocks):
    pointers = []
    sizes = []
    for cache in caches:
        block_bytes = cache.stride(0) * cache.element_size()
        base = cache.data_ptr()
        for block in blocks:
            pointers.append(base + block * block_bytes)
            sizes.append(block_bytes)
    return pointers, sizes


def batch_copy(src_caches, src_blocks, dst_caches, dst_blocks, attrs, stream):
    srcs, sizes = block_pointers(src_caches, src_blocks)
    dsts, _ = block_pointers(dst_caches, dst_blocks)
    # expect: KVG001, KVG002
    (err,) = drv.cuMemcpyBatchAsync(
        dsts,
        srcs,
        sizes,
        len(srcs),
        [attrs],
        [0],
        1,
        stream.cuda_stream,
    )
    if err != drv.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"cuMemcpyBatchAsync failed: {err}")
