import math

from numba import cuda

THREADS_PER_BLOCK = (16, 16)


@cuda.jit
def diffuse_step(src, dst, alpha):
    i, j = cuda.grid(2)
    n, m = src.shape
    if 0 < i < n - 1 and 0 < j < m - 1:
        lap = src[i - 1, j] + src[i + 1, j] + src[i, j - 1] + src[i, j + 1] - 4.0 * src[i, j]
        dst[i, j] = src[i, j] + alpha * lap
    elif i < n and j < m:
        dst[i, j] = src[i, j]


@cuda.jit
def add_source(field, x, y, amount):
    if cuda.grid(1) == 0:
        field[x, y] += amount


def launch_config(shape):
    grid = (math.ceil(shape[0] / THREADS_PER_BLOCK[0]), math.ceil(shape[1] / THREADS_PER_BLOCK[1]))
    return grid, THREADS_PER_BLOCK
