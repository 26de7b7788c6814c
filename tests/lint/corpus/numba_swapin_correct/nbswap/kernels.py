from numba import cuda

from .constants import BLOCK_SIZE


@cuda.jit
def append_token(cache, block_table, seq_lens, active, values):
    row = cuda.blockIdx.x
    seq = active[row]
    pos = seq_lens[seq]
    blk = block_table[seq, pos // BLOCK_SIZE]
    base = (pos % BLOCK_SIZE) * values.shape[1]
    j = cuda.threadIdx.x
    while j < values.shape[1]:
        cache[blk, base + j] = values[row, j]
        j += cuda.blockDim.x


@cuda.jit
def bump_lengths(seq_lens, active, step):
    i = cuda.grid(1)
    if i < active.shape[0]:
        seq_lens[active[i]] += step
