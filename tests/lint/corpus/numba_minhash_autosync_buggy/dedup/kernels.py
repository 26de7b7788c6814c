"""MinHash signatures: one thread per (document, permutation)."""
import numpy as np
from numba import cuda, uint32, uint64

MERSENNE_61 = (1 << 61) - 1


@cuda.jit
def minhash_kernel(shingles, offsets, perm_a, perm_b, out):
    doc, k = cuda.grid(2)
    if doc >= out.shape[0] or k >= out.shape[1]:
        return
    a = uint64(perm_a[k])
    b = uint64(perm_b[k])
    best = uint32(0xFFFFFFFF)
    for i in range(offsets[doc], offsets[doc + 1]):
        h = (a * uint64(shingles[i]) + b) % uint64(MERSENNE_61)
        h32 = uint32(h & uint64(0xFFFFFFFF))
        if h32 < best:
            best = h32
    out[doc, k] = best


def launch_dims(n_docs, num_perm, threads=(8, 32)):
    blocks = ((n_docs + threads[0] - 1) // threads[0], (num_perm + threads[1] - 1) // threads[1])
    return blocks, threads


def permutations(num_perm, seed):
    rng = np.random.default_rng(seed)
    a = rng.integers(1, MERSENNE_61, size=num_perm, dtype=np.uint64)
    b = rng.integers(0, MERSENNE_61, size=num_perm, dtype=np.uint64)
    return a, b
