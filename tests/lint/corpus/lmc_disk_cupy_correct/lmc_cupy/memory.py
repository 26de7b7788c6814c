import threading
from dataclasses import dataclass
from typing import List, Optional, Tuple

import cupy
import numpy as np


@dataclass
class PinnedMemoryObj:
    array: np.ndarray
    slot: int
    ready_event: Optional[cupy.cuda.Event] = None


class PinnedBufferPool:
    """Fixed-size pool of page-locked chunk buffers."""

    def __init__(self, chunk_shape: Tuple[int, ...], dtype, capacity: int):
        self.dtype = np.dtype(dtype)
        count = int(np.prod(chunk_shape))
        self._mem = [cupy.cuda.alloc_pinned_memory(count * self.dtype.itemsize) for _ in range(capacity)]
        self._arrays = [
            np.frombuffer(m, self.dtype, count).reshape(chunk_shape) for m in self._mem
        ]
        self._free: List[int] = list(range(capacity))
        self._lock = threading.Lock()

    def allocate(self) -> Optional[PinnedMemoryObj]:
        with self._lock:
            if not self._free:
                return None
            slot = self._free.pop()
        return PinnedMemoryObj(self._arrays[slot], slot)

    def release(self, obj: PinnedMemoryObj) -> None:
        obj.ready_event = None
        with self._lock:
            self._free.append(obj.slot)
