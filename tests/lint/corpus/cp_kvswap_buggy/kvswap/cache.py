"""Paged KV cache on the GPU with a pinned host tier."""

import cupy
import cupyx
import numpy

from .config import BLOCK_SHAPE, NUM_GPU_BLOCKS, NUM_HOST_BLOCKS


class PagedKVCache:
    def __init__(self):
        self.gpu_blocks = cupy.zeros((NUM_GPU_BLOCKS,) + BLOCK_SHAPE, dtype=cupy.float16)
        self.host_blocks = cupyx.empty_pinned((NUM_HOST_BLOCKS,) + BLOCK_SHAPE, dtype=numpy.float16)
        self.free_host = list(range(NUM_HOST_BLOCKS))

    def append(self, block_ids: cupy.ndarray, offsets: cupy.ndarray,
               k: cupy.ndarray, v: cupy.ndarray) -> None:
        """Scatter one token of K/V per sequence (runs on the current stream)."""
        self.gpu_blocks[block_ids, 0, offsets] = k
        self.gpu_blocks[block_ids, 1, offsets] = v
