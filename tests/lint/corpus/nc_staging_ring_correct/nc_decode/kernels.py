"""numba kernels launched on CuPy-owned streams."""

from numba import cuda


@cuda.jit
def greedy_argmax_kernel(logits, out_ids):
    row = cuda.blockIdx.x
    if row >= logits.shape[0] or cuda.threadIdx.x != 0:
        return
    best = 0
    best_val = logits[row, 0]
    for j in range(1, logits.shape[1]):
        v = logits[row, j]
        if v > best_val:
            best_val = v
            best = j
    out_ids[row] = best


def launch_greedy(logits, out_ids, cp_stream) -> None:
    """Launch on the same CUDA stream as ``cp_stream`` (a cupy.cuda.Stream)."""
    nb_stream = cuda.external_stream(cp_stream.ptr)
    greedy_argmax_kernel[logits.shape[0], 32, nb_stream](logits, out_ids)
