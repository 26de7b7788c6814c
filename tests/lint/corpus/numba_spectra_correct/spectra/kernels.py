import math

from numba import cuda, float32

THREADS_PER_BLOCK = 256


@cuda.jit
def zero_bins(bins):
    i = cuda.grid(1)
    if i < bins.shape[0]:
        bins[i] = float32(0.0)


@cuda.jit
def accumulate_power(frames, bin_edges, bins):
    """Square every sample and atomically add it to the bin of its magnitude."""
    i = cuda.grid(1)
    n = frames.shape[0] * frames.shape[1]
    if i >= n:
        return
    row = i // frames.shape[1]
    col = i % frames.shape[1]
    v = frames[row, col]
    p = v * v
    mag = math.fabs(v)
    nb = bins.shape[0]
    # bin_edges is sorted, linear scan is fine for the small bin counts we use
    b = 0
    while b < nb - 1 and mag >= bin_edges[b + 1]:
        b += 1
    cuda.atomic.add(bins, b, p)


def blocks_for(n: int) -> int:
    return (n + THREADS_PER_BLOCK - 1) // THREADS_PER_BLOCK
