"""Second-order factorization machine scoring for sparse CTR features (one thread per row)."""
import math

from numba import cuda, float32

MAX_FACTORS = 64


@cuda.jit
def fm_score(indices, values, nnz, bias, w, v, out):
    row = cuda.grid(1)
    if row >= out.shape[0]:
        return
    k_dim = v.shape[1]
    acc = bias[0]
    sum_f = cuda.local.array(MAX_FACTORS, float32)
    sum_sq = cuda.local.array(MAX_FACTORS, float32)
    for f in range(k_dim):
        sum_f[f] = 0.0
        sum_sq[f] = 0.0
    for j in range(nnz[row]):
        i = indices[row, j]
        x = values[row, j]
        acc += w[i] * x
        for f in range(k_dim):
            t = v[i, f] * x
            sum_f[f] += t
            sum_sq[f] += t * t
    for f in range(k_dim):
        acc += 0.5 * (sum_f[f] * sum_f[f] - sum_sq[f])
    out[row] = 1.0 / (1.0 + math.exp(-acc))
