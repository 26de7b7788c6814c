import queue
from typing import List, Tuple

import cupy
import cupyx
import numpy as np


class StreamSet:
    """The compute stream and the device-to-host stream of one featurizer."""

    def __init__(self, device_id: int = 0):
        with cupy.cuda.Device(device_id):
            self.compute = cupy.cuda.Stream(non_blocking=True)
            self.d2h = cupy.cuda.Stream(non_blocking=True)


class PinnedRing:

    def __init__(self, slots: int, shape: Tuple[int, ...], dtype=np.float32):
        self._buffers: List[np.ndarray] = [cupyx.empty_pinned(shape, dtype=dtype)
                                           for _ in range(slots)]
        self._free: "queue.SimpleQueue[int]" = queue.SimpleQueue()
        for index in range(slots):
            self._free.put(index)

    def acquire(self) -> Tuple[int, np.ndarray]:
        index = self._free.get()
        return index, self._buffers[index]

    def release(self, index: int) -> None:
        self._free.put(index)
