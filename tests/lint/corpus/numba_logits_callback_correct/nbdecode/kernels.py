import math

from numba import cuda


@cuda.jit
def row_softmax(logits, probs):
    row = cuda.blockIdx.x
    if row >= logits.shape[0]:
        return
    m = -1e30
    for j in range(logits.shape[1]):
        m = max(m, logits[row, j])
    s = 0.0
    for j in range(logits.shape[1]):
        s += math.exp(logits[row, j] - m)
    for j in range(cuda.threadIdx.x, logits.shape[1], cuda.blockDim.x):
        probs[row, j] = math.exp(logits[row, j] - m) / s
