"""numba scoring kernel; launched on the raw handle of a CuPy stream."""

import math

from numba import cuda

from .config import THREADS_PER_BLOCK


@cuda.jit
def cosine_score_kernel(features, query, out):
    i = cuda.grid(1)
    if i >= features.shape[0]:
        return
    dot = 0.0
    norm = 0.0
    for j in range(features.shape[1]):
        x = features[i, j]
        dot += x * query[j]
        norm += x * x
    out[i] = dot / (math.sqrt(norm) + 1e-6)


def launch_scores(features, query, out, cp_stream) -> None:
    nb_stream = cuda.external_stream(cp_stream.ptr)
    blocks = (features.shape[0] + THREADS_PER_BLOCK - 1) // THREADS_PER_BLOCK
    cosine_score_kernel[blocks, THREADS_PER_BLOCK, nb_stream](features, query, out)
