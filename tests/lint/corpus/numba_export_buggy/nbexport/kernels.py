"""CUDA kernels and their launch helpers."""

import math

from numba import cuda

THREADS_PER_BLOCK = 128


@cuda.jit
def _normalize_rows(src, out, eps):
    row = cuda.grid(1)
    if row >= src.shape[0]:
        return
    acc = 0.0
    for j in range(src.shape[1]):
        acc += src[row, j] * src[row, j]
    inv = 1.0 / math.sqrt(acc + eps)
    for j in range(src.shape[1]):
        out[row, j] = src[row, j] * inv


def launch_normalize(src, out, stream, eps=1e-6):
    blocks = (src.shape[0] + THREADS_PER_BLOCK - 1) // THREADS_PER_BLOCK
    _normalize_rows[blocks, THREADS_PER_BLOCK, stream](src, out, eps)
