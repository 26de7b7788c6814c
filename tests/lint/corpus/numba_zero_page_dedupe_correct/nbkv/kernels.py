"""numba kernels over the torch-owned paged KV cache."""
from numba import cuda


@cuda.jit
def scatter_kv(pages, slot_mapping, new_kv, page_tokens, token_elems):
    """pages: [num_pages, page_tokens * token_elems]; one block row per new token."""
    t = cuda.blockIdx.x
    slot = slot_mapping[t]
    if slot < 0:
        return
    page = slot // page_tokens
    base = (slot % page_tokens) * token_elems
    for i in range(cuda.threadIdx.x, token_elems, cuda.blockDim.x):
        pages[page, base + i] = new_kv[t, i]
