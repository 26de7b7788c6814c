from numba import cuda


@cuda.jit
def row_absmax(kv, out):
    row = cuda.grid(1)
    if row < kv.shape[0]:
        peak = 0.0
        for col in range(kv.shape[1]):
            value = abs(kv[row, col])
            if value > peak:
                peak = value
        out[row] = peak
