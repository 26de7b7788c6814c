import logging
from typing import Sequence

import cupy
import cupyx
import numpy

logger = logging.getLogger(__name__)


class CacheFormatter:
    """Lays out a request's KV blocks contiguously in pinned host staging memory."""

    def __init__(self, kv_pool: cupy.ndarray, max_blocks: int):
        self.kv_pool = kv_pool
        self.block_shape = kv_pool.shape[1:]
        self.max_blocks = max_blocks

    def new_staging_buffer(self) -> numpy.ndarray:
        return cupyx.empty_pinned((self.max_blocks, *self.block_shape), dtype=self.kv_pool.dtype)

    def gather(self, block_ids: Sequence[int], staging: numpy.ndarray,
               stream: cupy.cuda.Stream) -> int:
        if len(block_ids) > self.max_blocks:
            raise ValueError(f"{len(block_ids)} blocks exceed staging capacity {self.max_blocks}")
        for slot, block_id in enumerate(block_ids):
            # expect: KVG001
            self.kv_pool[block_id].get(stream=stream, out=staging[slot])
        logger.info("gathered %d blocks on stream %#x", len(block_ids), stream.ptr)
        return len(block_ids) * staging[0].nbytes
