from numba import cuda

from .config import BLOCK_TOKENS


@cuda.jit
def write_kv(cache, slot_mapping, kv):
    tok = cuda.blockIdx.x
    slot = slot_mapping[tok]
    if slot < 0:
        return
    blk = slot // BLOCK_TOKENS
    base = (slot % BLOCK_TOKENS) * kv.shape[1]
    i = cuda.threadIdx.x
    while i < kv.shape[1]:
        cache[blk, base + i] = kv[tok, i]
        i += cuda.blockDim.x
