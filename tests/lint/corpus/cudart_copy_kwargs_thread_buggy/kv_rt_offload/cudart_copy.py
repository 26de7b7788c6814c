from cuda.bindings import runtime as cudart

ORDER_STREAM = cudart.cudaMemcpySrcAccessOrder.cudaMemcpySrcAccessOrderStream
ORDER_ANY = cudart.cudaMemcpySrcAccessOrder.cudaMemcpySrcAccessOrderAny


def batch_copy(dsts: list[int], srcs: list[int], sizes: list[int], stream_handle: int, *,
               src_access_order=ORDER_STREAM, prefer_overlap_with_compute: bool = False) -> None:
    count = len(sizes)
    if count == 0:
        return
    attrs = cudart.cudaMemcpyAttributes()
    attrs.srcAccessOrder = src_access_order
    if prefer_overlap_with_compute:
        attrs.flags = cudart.cudaMemcpyFlags.cudaMemcpyFlagPreferOverlapWithCompute
    # expect: KVG002
    err, *_ = cudart.cudaMemcpyBatchAsync(dsts, srcs, sizes, count, [attrs], [0], 1, stream_handle)
    if err != cudart.cudaError_t.cudaSuccess:
        raise RuntimeError(f"cudaMemcpyBatchAsync failed: {err}")
