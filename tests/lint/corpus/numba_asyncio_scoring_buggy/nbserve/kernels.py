import math

from numba import cuda


@cuda.jit
def score_rows(features, weights, bias, out):
    i = cuda.grid(1)
    if i < features.shape[0]:
        acc = bias
        for j in range(features.shape[1]):
            acc += features[i, j] * weights[j]
        out[i] = 1.0 / (1.0 + math.exp(-acc))


@cuda.jit
def accumulate_histogram(scores, n, hist):
    i = cuda.grid(1)
    if i < n:
        b = min(int(scores[i] * hist.shape[0]), hist.shape[0] - 1)
        cuda.atomic.add(hist, b, 1)
