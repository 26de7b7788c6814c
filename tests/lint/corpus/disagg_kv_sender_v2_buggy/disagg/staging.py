import queue

import cupyx
import numpy as np


class PinnedStagingPool:
    """Fixed set of page-locked host buffers, one chunk of blocks each."""

    def __init__(self, num_buffers: int, chunk_blocks: int, block_bytes: int):
        self._free: "queue.Queue[np.ndarray]" = queue.Queue()
        for _ in range(num_buffers):
            self._free.put(
                cupyx.empty_pinned((chunk_blocks, block_bytes), dtype=np.uint8)
            )

    def acquire(self) -> np.ndarray:
        return self._free.get()

    def release(self, buf: np.ndarray) -> None:
        self._free.put(buf)
