from numba import cuda


@cuda.jit
def decay(block, factor):
    i = cuda.grid(1)
    if i < block.size:
        block[i] *= factor
