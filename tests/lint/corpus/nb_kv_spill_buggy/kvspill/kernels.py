"""int8 packing of evicted KV blocks before they leave the GPU."""
import math

from numba import cuda

from .config import HEAD_DIM


@cuda.jit
def pack_blocks(kv, block_ids, packed, scales):
    b = cuda.blockIdx.x
    t = cuda.threadIdx.x
    src = block_ids[b]
    amax = 0.0
    for d in range(HEAD_DIM):
        amax = max(amax, abs(kv[src, t, d]))
    scale = amax / 127.0 if amax > 0.0 else 1.0
    scales[b, t] = scale
    for d in range(HEAD_DIM):
        q = int(math.floor(kv[src, t, d] / scale + 0.5))
        packed[b, t, d] = min(127, max(-127, q))
