"""Gathers scattered KV pages into one contiguous buffer (launched on the current stream)."""
import cupy
import numpy

_GATHER = cupy.RawKernel(r"""
#include <cuda_fp16.h>
extern "C" __global__
void gather_pages(const __half* pages, const int* ids, __half* out, long long page_elems) {
    const __half* src = pages + (long long)ids[blockIdx.x] * page_elems;
    __half* dst = out + (long long)blockIdx.x * page_elems;
    for (long long i = threadIdx.x; i < page_elems; i += blockDim.x) {
        dst[i] = src[i];
    }
}
""", "gather_pages")


def gather_pages(pages: cupy.ndarray, ids: cupy.ndarray, out: cupy.ndarray) -> None:
    n = int(ids.size)
    if n:
        _GATHER((n,), (256,), (pages, ids, out, numpy.int64(pages.shape[1])))
