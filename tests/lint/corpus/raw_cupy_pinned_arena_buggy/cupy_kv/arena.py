"""Pinned host slots for spilled pages, carved from one page-locked allocation."""

import numpy as np
import cupy


class PinnedArena:
    def __init__(self, num_slots, page_shape, dtype):
        self.page_shape = tuple(page_shape)
        self.dtype = np.dtype(dtype)
        elems = int(np.prod(self.page_shape))
        self.slot_bytes = elems * self.dtype.itemsize
        self._mem = cupy.cuda.alloc_pinned_memory(num_slots * self.slot_bytes)
        self.slots = np.frombuffer(self._mem, dtype=self.dtype, count=num_slots * elems).reshape(
            (num_slots,) + self.page_shape
        )
        self.free = list(range(num_slots))

    def slot_ptr(self, slot):
        return self._mem.ptr + slot * self.slot_bytes

    def take(self, n):
        taken, self.free = self.free[:n], self.free[n:]
        return taken

    def give_back(self, slots):
        self.free.extend(slots)
