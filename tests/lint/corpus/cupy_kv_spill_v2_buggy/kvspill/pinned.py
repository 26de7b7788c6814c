"""Fixed-size pool of page-locked host blocks."""

import logging
import queue
from typing import Tuple

import cupyx
import numpy

logger = logging.getLogger(__name__)


class PinnedBlockPool:
    def __init__(self, num_blocks: int, block_bytes: int):
        self.block_bytes = block_bytes
        self._blocks = [
            cupyx.empty_pinned((block_bytes,), dtype=numpy.uint8) for _ in range(num_blocks)
        ]
        self._free: "queue.Queue[int]" = queue.Queue()
        for index in range(num_blocks):
            self._free.put(index)
        logger.info("Pinned pool: %d x %d bytes", num_blocks, block_bytes)

    def acquire(self, nbytes: int) -> Tuple[int, numpy.ndarray]:
        if nbytes > self.block_bytes:
            raise ValueError(f"request of {nbytes} bytes exceeds block size {self.block_bytes}")
        index = self._free.get()
        return index, self._blocks[index][:nbytes]

    def release(self, index: int) -> None:
        self._free.put(index)
