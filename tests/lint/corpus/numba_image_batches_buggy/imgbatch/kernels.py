from __future__ import annotations

from numba import cuda


@cuda.jit
def rgb_to_luma(rgb, luma, n_valid):
    idx = cuda.grid(1)
    h = luma.shape[1]
    w = luma.shape[2]
    if idx >= n_valid * h * w:
        return
    b = idx // (h * w)
    rem = idx - b * h * w
    y = rem // w
    x = rem - y * w
    r = rgb[b, y, x, 0]
    g = rgb[b, y, x, 1]
    bl = rgb[b, y, x, 2]
    luma[b, y, x] = (0.299 * r + 0.587 * g + 0.114 * bl) / 255.0


@cuda.jit
def zero_scores(scores):
    i = cuda.grid(1)
    if i < scores.shape[0]:
        scores[i] = 0.0


@cuda.jit
def laplacian_energy(luma, scores, n_valid):
    """Variance-of-Laplacian style sharpness score, one block per image."""
    b = cuda.blockIdx.x
    if b >= n_valid:
        return
    h = luma.shape[1]
    w = luma.shape[2]
    inner = (h - 2) * (w - 2)
    acc = 0.0
    for p in range(cuda.threadIdx.x, inner, cuda.blockDim.x):
        y = 1 + p // (w - 2)
        x = 1 + p % (w - 2)
        lap = (
            4.0 * luma[b, y, x]
            - luma[b, y - 1, x]
            - luma[b, y + 1, x]
            - luma[b, y, x - 1]
            - luma[b, y, x + 1]
        )
        acc += lap * lap
    cuda.atomic.add(scores, b, acc / inner)
