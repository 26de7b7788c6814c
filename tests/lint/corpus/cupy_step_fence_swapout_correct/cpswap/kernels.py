"""Raw CUDA kernels of the paged KV pool."""
import cupy as cp

_APPEND_SRC = r"""
#include <cuda_fp16.h>

extern "C" __global__
void append_kv(half* pages, const int* page_ids, const int* slots,
               const half* values, int rows, int width, int page_elems) {
    int r = blockIdx.x;
    if (r >= rows) return;
    half* page = pages + (long long)page_ids[r] * page_elems + (long long)slots[r] * width;
    for (int c = threadIdx.x; c < width; c += blockDim.x) {
        page[c] = values[(long long)r * width + c];
    }
}
"""

append_kv = cp.RawKernel(_APPEND_SRC, "append_kv")
