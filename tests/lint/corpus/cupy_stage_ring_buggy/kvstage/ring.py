from __future__ import annotations

import dataclasses
from typing import Optional

import cupy
import numpy as np


@dataclasses.dataclass
class PinnedSlot:
    index: int
    host: np.ndarray
    mem: cupy.cuda.PinnedMemoryPointer
    done: Optional[cupy.cuda.Event] = None
    layer: int = -1
    block: int = -1


class PinnedRing:
    """Fixed set of page-locked buffers reused round-robin."""

    def __init__(self, depth: int, shape: tuple[int, ...], dtype) -> None:
        count = int(np.prod(shape))
        nbytes = count * np.dtype(dtype).itemsize
        self._slots: list[PinnedSlot] = []
        for i in range(depth):
            mem = cupy.cuda.alloc_pinned_memory(nbytes)
            host = np.frombuffer(mem, dtype=dtype, count=count).reshape(shape)
            self._slots.append(PinnedSlot(index=i, host=host, mem=mem))
        self._next = 0

    def next_slot(self) -> PinnedSlot:
        slot = self._slots[self._next]
        self._next = (self._next + 1) % len(self._slots)
        return slot

    def pending(self) -> list[PinnedSlot]:
        return [s for s in self._slots if s.done is not None]
