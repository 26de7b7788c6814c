from numba import cuda


@cuda.jit
def expert_gemv(w, x, y):
    i = cuda.grid(1)
    if i < y.shape[0]:
        acc = 0.0
        for k in range(x.shape[0]):
            acc += w[i, k] * x[k]
        y[i] = acc
