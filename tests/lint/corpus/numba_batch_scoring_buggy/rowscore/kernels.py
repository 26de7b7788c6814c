import math

from numba import cuda


@cuda.jit
def row_score_kernel(values, weights, clip, out):
    row = cuda.grid(1)
    if row >= values.shape[0]:
        return
    acc = 0.0
    for j in range(values.shape[1]):
        v = values[row, j]
        if v > clip:
            v = clip
        elif v < -clip:
            v = -clip
        acc += v * weights[j]
    out[row] = 1.0 / (1.0 + math.exp(-acc))
