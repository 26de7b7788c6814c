"""Thin helpers over cuda-python's runtime bindings."""
from typing import Sequence

from cuda.bindings import runtime as cudart

_ORDERS = {
    "stream": cudart.cudaMemcpySrcAccessOrder.cudaMemcpySrcAccessOrderStream,
    "during_api_call": cudart.cudaMemcpySrcAccessOrder.cudaMemcpySrcAccessOrderDuringApiCall,
    "any": cudart.cudaMemcpySrcAccessOrder.cudaMemcpySrcAccessOrderAny,
}


class CudaRuntimeError(RuntimeError):
    pass


def check(result):
    err, *rest = result if isinstance(result, tuple) else (result,)
    if err != cudart.cudaError_t.cudaSuccess:
        raise CudaRuntimeError(cudart.cudaGetErrorString(err)[1].decode())
    return rest[0] if rest else None


def memcpy_batch(dsts: Sequence[int], srcs: Sequence[int], sizes: Sequence[int],
                 stream: int, *, src_order: str = "stream") -> None:
    """One cudaMemcpyBatchAsync for all pairs, with a single attribute entry."""
    if not dsts:
        return
    attrs = cudart.cudaMemcpyAttributes()
    attrs.srcAccessOrder = _ORDERS[src_order]
    attrs.flags = cudart.cudaMemcpyFlags.cudaMemcpyFlagPreferOverlapWithCompute
    # expect: KVG002
    check(cudart.cudaMemcpyBatchAsync(list(dsts), list(srcs), list(sizes), len(dsts),
                                      [attrs], [0], 1, stream))
