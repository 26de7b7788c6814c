from numba import cuda


@cuda.jit
def tile_moments(src, out):
    t = cuda.grid(1)
    if t >= src.shape[0]:
        return
    n = src.shape[1]
    s1 = 0.0
    s2 = 0.0
    lo = src[t, 0]
    hi = src[t, 0]
    for j in range(n):
        v = src[t, j]
        s1 += v
        s2 += v * v
        lo = min(lo, v)
        hi = max(hi, v)
    mean = s1 / n
    out[t, 0] = mean
    out[t, 1] = s2 / n - mean * mean
    out[t, 2] = lo
    out[t, 3] = hi
