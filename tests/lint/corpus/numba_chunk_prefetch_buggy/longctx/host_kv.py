"""A long sequence's KV, kept in pinned host memory as fixed-size chunks."""
from dataclasses import dataclass, field
from typing import List

import numpy as np
from numba import cuda


@dataclass
class HostChunk:
    k: np.ndarray
    v: np.ndarray
    n_valid: int


@dataclass
class HostKV:
    chunk_tokens: int
    num_heads: int
    head_dim: int
    chunks: List[HostChunk] = field(default_factory=list)

    def append_chunk(self, k: np.ndarray, v: np.ndarray) -> None:
        shape = (self.chunk_tokens, self.num_heads, self.head_dim)
        hk = cuda.pinned_array(shape, dtype=np.float32)
        hv = cuda.pinned_array(shape, dtype=np.float32)
        n = k.shape[0]
        hk[:n] = k
        hv[:n] = v
        self.chunks.append(HostChunk(hk, hv, n))
