"""Batched host<->device copies through the CUDA runtime's cudaMemcpyBatchAsync (cuda-python).

One call moves every block of a job, which costs far less CPU time than a copy per block."""

from cuda.bindings import runtime as cudart

_Order = cudart.cudaMemcpySrcAccessOrder

# device -> host: the copy stream waits on the compute stream's event before every store,
# so let the copy engine start on the blocks as early as the driver likes
STORE_SRC_ORDER = _Order.cudaMemcpySrcAccessOrderAny
# host -> device: a block's store, queued earlier on the same copy stream, may not have
# landed in the pinned block yet, so loads read in stream order too
LOAD_SRC_ORDER = _Order.cudaMemcpySrcAccessOrderStream


def _check(result):
    err = result[0]
    if err != cudart.cudaError_t.cudaSuccess:
        raise RuntimeError(f"CUDA runtime error: {err}")
    return result[1:]


def make_attrs(src_order):
    attrs = cudart.cudaMemcpyAttributes()
    attrs.srcAccessOrder = src_order
    attrs.flags = cudart.cudaMemcpyFlags.cudaMemcpyFlagPreferOverlapWithCompute
    return attrs


def batch_copy(dst_ptrs, src_ptrs, sizes, attrs, stream_handle):
    count = len(dst_ptrs)
    # expect: KVG002
    _check(cudart.cudaMemcpyBatchAsync(dst_ptrs, src_ptrs, sizes, count, [attrs], [0], 1, stream_handle))
