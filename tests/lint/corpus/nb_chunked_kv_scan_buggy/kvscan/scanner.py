"""Scores a query against keys that live in pinned host memory, chunk by chunk."""
import math

import numpy as np
from numba import cuda

from .loader import ChunkLoader
from .params import CHUNK_ROWS, DEFAULT_TOP_K, THREADS_PER_BLOCK
from .scoring import finalize_topk, score_chunk


class HostKeyScanner:
    def __init__(self, dim: int):
        self.streams = {"compute": cuda.stream(), "load": cuda.stream()}
        self.loader = ChunkLoader(self.streams["load"], dim)

    def scan(self, query: np.ndarray, host_keys: np.ndarray, top_k: int = DEFAULT_TOP_K) -> np.ndarray:
        """host_keys must come from cuda.pinned_array so chunk loads stay async."""
        compute = self.streams["compute"]
        total = host_keys.shape[0]
        n_chunks = math.ceil(total / CHUNK_ROWS)
        q_dev = cuda.to_device(query.astype(np.float32), stream=compute)
        d_scores = cuda.device_array(total, dtype=np.float32, stream=compute)

        def chunk(i):
            return host_keys[i * CHUNK_ROWS : min(total, (i + 1) * CHUNK_ROWS)]

        self.loader.load(0, chunk(0))
        for i in range(n_chunks):
            if i + 1 < n_chunks:
                self.loader.load(i + 1, chunk(i + 1))
            k_dev = self.loader.acquire(i, compute)
            rows = chunk(i).shape[0]
            blocks = (rows + THREADS_PER_BLOCK - 1) // THREADS_PER_BLOCK
            score_chunk[blocks, THREADS_PER_BLOCK, compute](q_dev, k_dev, rows, d_scores, i * CHUNK_ROWS)
            self.loader.release(i, compute)

        h_scores = cuda.pinned_array(total, dtype=np.float32)
        d_scores.copy_to_host(h_scores, stream=compute)
        return finalize_topk(h_scores, compute, top_k)
