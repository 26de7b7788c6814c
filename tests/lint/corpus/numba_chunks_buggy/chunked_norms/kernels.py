import math

from numba import cuda


@cuda.jit
def row_l2_norms(inp, out, n_rows):
    row = cuda.grid(1)
    if row >= n_rows:
        return
    acc = 0.0
    for col in range(inp.shape[1]):
        v = inp[row, col]
        acc += v * v
    out[row] = math.sqrt(acc)
