"""Pinned staging ring: each slot owns a pinned host array and a 'done' event."""

from queue import Queue
from typing import List, Optional

import cupy as cp
import cupyx
import numpy as np


class StagingSlot:
    def __init__(self, index: int, capacity: int):
        self.index = index
        self.host = cupyx.empty_pinned((capacity,), dtype=np.int32)
        self.done = cp.cuda.Event(block=False, disable_timing=True)
        self.num_rows = 0
        self.request_ids: List[str] = []
        self.device_ref: Optional[cp.ndarray] = None  # keeps the source alive


class PinnedStagingRing:
    def __init__(self, num_slots: int, capacity: int):
        self.slots = [StagingSlot(i, capacity) for i in range(num_slots)]
        self._free: "Queue[int]" = Queue()
        for i in range(num_slots):
            self._free.put(i)

    def acquire(self) -> StagingSlot:
        """Blocks until the reader has handed a slot back."""
        return self.slots[self._free.get()]

    def commit(self, slot: StagingSlot, stream: cp.cuda.Stream) -> None:
        """Mark the slot's pending copy on ``stream``; readers wait on ``slot.done``."""
        slot.done.record(stream)

    def release(self, slot: StagingSlot) -> None:
        slot.device_ref = None
        self._free.put(slot.index)
