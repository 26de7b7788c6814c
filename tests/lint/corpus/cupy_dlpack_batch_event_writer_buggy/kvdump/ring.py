"""A fixed ring of page-sized pinned staging buffers, handed out and returned by index."""
import queue
from dataclasses import dataclass

import cupyx
import numpy as np


@dataclass
class StagingSlot:
    index: int
    buf: np.ndarray


class StagingRing:
    def __init__(self, num_slots: int, page_shape, dtype):
        self.slots = [StagingSlot(i, cupyx.empty_pinned(page_shape, dtype=dtype))
                      for i in range(num_slots)]
        self._free = queue.Queue()
        for slot in self.slots:
            self._free.put(slot)

    def acquire(self, timeout=None) -> StagingSlot:
        return self._free.get(timeout=timeout)

    def release(self, slot: StagingSlot) -> None:
        self._free.put(slot)
