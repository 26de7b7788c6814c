"""Elementwise kernels used by the pager."""
import cupy as cp

# Writes one token's key/value row into a page: page[slot] = kv
append_kv_kernel = cp.RawKernel(
    r"""
extern "C" __global__
void append_kv(half* pages, const half* kv, const int* page_ids, int slot,
               int page_stride, int row, int n_seqs) {
    int s = blockIdx.x;
    int i = threadIdx.x;
    if (s >= n_seqs) return;
    half* page = pages + (long)page_ids[s] * page_stride + (long)slot * row;
    for (int c = i; c < row; c += blockDim.x) {
        page[c] = kv[(long)s * row + c];
    }
}
""",
    "append_kv",
)


def launch_append(pages, kv, page_ids, slot):
    n_seqs = kv.shape[0]
    row = kv.shape[1]
    page_stride = pages.shape[1] * pages.shape[2]
    append_kv_kernel((n_seqs,), (128,), (pages, kv, page_ids, cp.int32(slot), cp.int32(page_stride),
                                        cp.int32(row), cp.int32(n_seqs)))
