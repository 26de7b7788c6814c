"""numba kernels over the paged KV pool (num_pages x page_elems, float32)."""
from numba import cuda


@cuda.jit
def append_tokens(pages, page_ids, slots, width, values):
    """values[i] is the new token of sequence i; it goes to page page_ids[i] at token slot slots[i]."""
    i, j = cuda.grid(2)
    if i < page_ids.shape[0] and j < width:
        pages[page_ids[i], slots[i] * width + j] = values[i, j]


def launch_dims(rows, width, block=(4, 64)):
    grid = ((rows + block[0] - 1) // block[0], (width + block[1] - 1) // block[1])
    return grid, block
