import queue

import cupy
import numpy


class PinnedStagingRing:
    """Fixed set of page-locked host slots, handed out one block at a time."""

    def __init__(self, slots: int, slot_bytes: int):
        self._pool = cupy.cuda.PinnedMemoryPool()
        self._slot_bytes = slot_bytes
        self._mems = [self._pool.malloc(slot_bytes) for _ in range(slots)]
        self._free: "queue.Queue[int]" = queue.Queue()
        for idx in range(slots):
            self._free.put(idx)

    def acquire(self, like: cupy.ndarray) -> tuple[int, numpy.ndarray]:
        if like.nbytes > self._slot_bytes:
            raise ValueError(f"block of {like.nbytes} bytes exceeds staging slot")
        idx = self._free.get()
        raw = numpy.frombuffer(self._mems[idx], dtype=numpy.uint8, count=like.nbytes)
        return idx, raw.view(like.dtype).reshape(like.shape)

    def release(self, idx: int) -> None:
        self._free.put(idx)
