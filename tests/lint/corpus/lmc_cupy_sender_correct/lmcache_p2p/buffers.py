# SPDX-License-Identifier: Apache-2.0
# Standard
from collections import deque
import threading

# Third Party
import cupyx
import numpy as np


class PinnedBufferPool:
    def __init__(self, total_bytes: int, slot_bytes: int):
        self.slot_bytes = slot_bytes
        num_slots = max(1, total_bytes // slot_bytes)
        self._free = deque(
            cupyx.empty_pinned((slot_bytes,), dtype=np.uint8) for _ in range(num_slots)
        )
        self._cv = threading.Condition()

    def acquire(self) -> np.ndarray:
        with self._cv:
            while not self._free:
                self._cv.wait()
            return self._free.popleft()

    def release(self, buf: np.ndarray) -> None:
        with self._cv:
            self._free.append(buf)
            self._cv.notify()
