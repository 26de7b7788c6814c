import queue
from dataclasses import dataclass

import numpy as np
from numba import cuda

from kvquant.constants import MAX_ROWS_PER_CHUNK, NUM_HOST_SLOTS


@dataclass
class HostSlot:
    index: int
    q: np.ndarray
    scales: np.ndarray

    def fetch(self, d_scales, d_out, n: int, stream) -> None:
        d_scales.copy_to_host(self.scales[:n], stream=stream)
        # expect: KVG001
        d_out.copy_to_host(self.q[:n], stream=stream)


class HostSlotPool:
    """Page-locked output buffers reused across chunks."""

    def __init__(self, cols: int, num_slots: int = NUM_HOST_SLOTS, max_rows: int = MAX_ROWS_PER_CHUNK):
        self.cols = cols
        self.max_rows = max_rows
        self._free: "queue.Queue[HostSlot]" = queue.Queue()
        for i in range(num_slots):
            self._free.put(HostSlot(
                index=i,
                q=cuda.pinned_array((max_rows, cols), dtype=np.int8),
                scales=cuda.pinned_array(max_rows, dtype=np.float32),
            ))

    def acquire(self) -> HostSlot:
        return self._free.get()

    def release(self, slot: HostSlot) -> None:
        self._free.put(slot)
