"""GPU MinHash for a document stream, one batch at a time on a private stream."""
import zlib

import numpy as np
from numba import cuda

from .config import MinHashConfig
from .kernels import launch_dims, minhash_kernel, permutations


def shingle_hashes(text, k):
    tokens = text.split()
    grams = {" ".join(tokens[i:i + k]) for i in range(max(1, len(tokens) - k + 1))}
    return np.fromiter((zlib.crc32(g.encode()) for g in grams), dtype=np.uint32)


class GpuMinHasher:
    def __init__(self, config: MinHashConfig):
        self.config = config
        self.stream = cuda.stream()
        a, b = permutations(config.num_perm, config.seed)
        self.d_a = cuda.to_device(a, stream=self.stream)
        self.d_b = cuda.to_device(b, stream=self.stream)
        self.h_sig = cuda.pinned_array((config.batch_docs, config.num_perm), dtype=np.uint32)
        self.h_shingles = cuda.pinned_array(config.max_shingles, dtype=np.uint32)
        self.h_offsets = cuda.pinned_array(config.batch_docs + 1, dtype=np.int64)

    def _stage(self, texts):
        pos = 0
        self.h_offsets[0] = 0
        for i, text in enumerate(texts):
            hashes = shingle_hashes(text, self.config.shingle_size)
            self.h_shingles[pos:pos + len(hashes)] = hashes
            pos += len(hashes)
            self.h_offsets[i + 1] = pos
        return pos

    def sign_batch(self, doc_ids, texts, sink):
        n = len(texts)
        total = self._stage(texts)
        blocks, threads = launch_dims(n, self.config.num_perm)
        with self.stream.auto_synchronize():
            d_shingles = cuda.to_device(self.h_shingles[:total], stream=self.stream)
            d_offsets = cuda.to_device(self.h_offsets[:n + 1], stream=self.stream)
            d_sig = cuda.device_array((n, self.config.num_perm), dtype=np.uint32, stream=self.stream)
            minhash_kernel[blocks, threads, self.stream](d_shingles, d_offsets, self.d_a, self.d_b, d_sig)
            d_sig.copy_to_host(self.h_sig[:n], stream=self.stream)
            sink.write_batch(doc_ids, self.h_sig[:n])
