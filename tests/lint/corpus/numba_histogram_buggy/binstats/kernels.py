from numba import cuda


@cuda.jit
def bin_counts(values, lo, inv_width, hist):
    i = cuda.grid(1)
    if i < values.shape[0]:
        b = int((values[i] - lo) * inv_width)
        if b < 0:
            b = 0
        elif b >= hist.shape[0]:
            b = hist.shape[0] - 1
        cuda.atomic.add(hist, b, 1)


@cuda.jit
def zero_fill(arr):
    i = cuda.grid(1)
    if i < arr.shape[0]:
        arr[i] = 0


def grid_for(n: int, threads_per_block: int) -> int:
    return max(1, (n + threads_per_block - 1) // threads_per_block)
