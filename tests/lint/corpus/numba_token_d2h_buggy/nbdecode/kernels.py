from numba import cuda, float32


@cuda.jit
def greedy_argmax(logits, temperature, out_ids):
    row = cuda.grid(1)
    if row >= out_ids.shape[0]:
        return
    inv_t = float32(1.0) / temperature[row]
    best = logits[row, 0] * inv_t
    best_id = 0
    for col in range(1, logits.shape[1]):
        val = logits[row, col] * inv_t
        if val > best:
            best = val
            best_id = col
    out_ids[row] = best_id
