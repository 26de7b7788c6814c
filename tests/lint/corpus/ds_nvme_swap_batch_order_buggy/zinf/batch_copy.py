from cuda.bindings import runtime as cudart


def _check(result):
    err = result[0]
    if err != cudart.cudaError_t.cudaSuccess:
        raise RuntimeError(f"CUDA error {err}")
    return result[1] if len(result) > 1 else None


class BatchCopier:
    """Many small copies in one ``cudaMemcpyBatchAsync`` call on a fixed stream."""

    def __init__(self, stream):
        self.stream = stream

    @staticmethod
    def _attrs(src_order):
        attrs = cudart.cudaMemcpyAttributes()
        attrs.srcAccessOrder = src_order
        attrs.flags = cudart.cudaMemcpyFlags.cudaMemcpyFlagPreferOverlapWithCompute
        return attrs

    def copy(self, dst_ptrs, src_ptrs, sizes, src_order):
        count = len(sizes)
        if count == 0:
            return
        attrs = self._attrs(src_order)
        # expect: KVG002
        _check(cudart.cudaMemcpyBatchAsync(dst_ptrs, src_ptrs, sizes, count, [attrs], [0], 1,
                                           self.stream.cuda_stream))
