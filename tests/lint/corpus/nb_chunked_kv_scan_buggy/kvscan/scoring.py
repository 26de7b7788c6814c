"""Device scoring kernel and the host-side ranking of its output."""
import numpy as np
from numba import cuda


@cuda.jit
def score_chunk(q, k_chunk, n_rows, scores, base):
    row = cuda.grid(1)
    if row >= n_rows:
        return
    acc = 0.0
    for d in range(q.shape[0]):
        acc += q[d] * k_chunk[row, d]
    scores[base + row] = acc


def finalize_topk(h_scores: np.ndarray, stream, k: int) -> np.ndarray:
    """Wait for the scores to land in pinned memory, then rank on the host."""
    stream.synchronize()
    k = min(k, h_scores.shape[0])
    idx = np.argpartition(h_scores, -k)[-k:]
    return idx[np.argsort(-h_scores[idx])]
