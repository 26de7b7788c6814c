from numba import cuda


@cuda.jit
def apply_bias_kernel(logits, bias_table, row_ids):
    seq, col = cuda.grid(2)
    if seq < logits.shape[0] and col < logits.shape[1]:
        row = row_ids[seq]
        if row >= 0:
            logits[seq, col] += bias_table[row, col]


@cuda.jit
def count_biased_kernel(row_ids, counter):
    i = cuda.grid(1)
    if i < row_ids.shape[0] and row_ids[i] >= 0:
        cuda.atomic.add(counter, 0, 1)
