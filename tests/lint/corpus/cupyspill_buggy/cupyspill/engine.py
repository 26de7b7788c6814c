# SPDX-License-Identifier: Apache-2.0
# Standard
from concurrent.futures import Future
from typing import List, Sequence
import logging

# Third Party
import cupy

# First Party
from cupyspill.backend import LocalDiskBackend
from cupyspill.constants import BLOCKS_PER_CHUNK
from cupyspill.kvcache import PagedKVCache

logger = logging.getLogger(__name__)


def _is_contiguous(block_ids: Sequence[int]) -> bool:
    return all(b - a == 1 for a, b in zip(block_ids, block_ids[1:]))


class SpillEngine:
    def __init__(self, cache: PagedKVCache, backend: LocalDiskBackend,
                 blocks_per_chunk: int = BLOCKS_PER_CHUNK):
        self.cache = cache
        self.backend = backend
        self.blocks_per_chunk = blocks_per_chunk

    def spill(self, request_id: str, block_ids: Sequence[int]) -> List[Future]:
        """Packs the blocks of a finished request into chunks and hands each
        chunk to the disk backend; returns one future per chunk."""
        stream = self.cache.compute_stream
        futures = []
        for i in range(0, len(block_ids), self.blocks_per_chunk):
            chunk_ids = list(block_ids[i:i + self.blocks_per_chunk])
            with stream:
                ready = None
                if _is_contiguous(chunk_ids):
                    packed = self.cache.kv[chunk_ids[0]:chunk_ids[-1] + 1]
                else:
                    idx = cupy.asarray(chunk_ids, dtype=cupy.int64)
                    packed = cupy.take(self.cache.kv, idx, axis=0)
                    ready = cupy.cuda.Event(disable_timing=True)
                    ready.record(stream)
            key = f"{request_id}_{i // self.blocks_per_chunk:04d}"
            futures.append(self.backend.submit_put(key, packed, ready))
        logger.debug("Spilling %d blocks of %s", len(block_ids), request_id)
        return futures
