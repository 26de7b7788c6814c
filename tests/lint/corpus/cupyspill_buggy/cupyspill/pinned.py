# SPDX-License-Identifier: Apache-2.0
# Standard
from typing import Optional, Tuple
import logging
import queue

# Third Party
import cupy
import numpy

# First Party
from cupyspill.constants import PINNED_POOL_SLOTS, PINNED_SLOT_BYTES

logger = logging.getLogger(__name__)


class PinnedSlot:
    def __init__(self, index: int, nbytes: int):
        self.index = index
        self.nbytes = nbytes
        self._mem = cupy.cuda.alloc_pinned_memory(nbytes)

    def as_array(self, shape: Tuple[int, ...], dtype: numpy.dtype) -> numpy.ndarray:
        count = int(numpy.prod(shape))
        if count * numpy.dtype(dtype).itemsize > self.nbytes:
            raise ValueError(f"{shape} {dtype} does not fit a {self.nbytes}-byte slot")
        return numpy.frombuffer(self._mem, dtype, count).reshape(shape)


class PinnedBufferPool:
    def __init__(self, slots: int = PINNED_POOL_SLOTS, slot_bytes: int = PINNED_SLOT_BYTES):
        self._free: "queue.Queue[PinnedSlot]" = queue.Queue()
        for i in range(slots):
            self._free.put(PinnedSlot(i, slot_bytes))
        logger.info("Pinned pool: %d x %d MiB", slots, slot_bytes >> 20)

    def acquire(self, timeout: Optional[float] = None) -> PinnedSlot:
        return self._free.get(timeout=timeout)

    def release(self, slot: PinnedSlot) -> None:
        self._free.put(slot)
