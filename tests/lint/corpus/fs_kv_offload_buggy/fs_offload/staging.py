import queue

import cupyx
import numpy as np


class PinnedStagingPool:
    def __init__(self, num_buffers: int, shape: tuple, dtype: np.dtype):
        self._free: "queue.Queue[np.ndarray]" = queue.Queue()
        for _ in range(num_buffers):
            self._free.put(cupyx.empty_pinned(shape, dtype=dtype))

    def acquire(self) -> np.ndarray:
        return self._free.get()

    def release(self, buf: np.ndarray) -> None:
        self._free.put(buf)
