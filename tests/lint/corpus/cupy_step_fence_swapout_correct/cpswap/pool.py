"""Device page pool and pinned host arena, addressed by raw pointer."""
from collections import deque

import cupy as cp


class DevicePagePool:
    def __init__(self, num_pages, page_elems, dtype=cp.float16):
        self.data = cp.zeros((num_pages, page_elems), dtype=dtype)
        self.page_elems = page_elems
        self.page_bytes = page_elems * self.data.itemsize
        self.free = deque(range(num_pages))

    def page_ptr(self, idx):
        return self.data.data.ptr + idx * self.page_bytes


class HostArena:
    def __init__(self, num_slots, page_bytes):
        self._mem = cp.cuda.alloc_pinned_memory(num_slots * page_bytes)
        self.page_bytes = page_bytes
        self.free = list(range(num_slots))

    def slot_ptr(self, idx):
        return self._mem.ptr + idx * self.page_bytes
