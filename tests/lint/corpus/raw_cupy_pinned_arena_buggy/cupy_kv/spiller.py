"""Moves pages between the device pool and the pinned arena, and from the arena to files."""

import os
from concurrent.futures import ThreadPoolExecutor

import cupy
from cupy.cuda import runtime

from cupy_kv.settings import SPILL_WRITERS


class PageSpiller:
    def __init__(self, pool, arena, spill_dir):
        self.pool = pool
        self.arena = arena
        self.spill_dir = spill_dir
        self.d2h = cupy.cuda.Stream(non_blocking=True)
        self.h2d = cupy.cuda.Stream(non_blocking=True)
        self.writers = ThreadPoolExecutor(max_workers=SPILL_WRITERS, thread_name_prefix="kv-spill")

    def spill(self, pages):
        slots = self.arena.take(len(pages))
        produced = cupy.cuda.get_current_stream().record()
        self.d2h.wait_event(produced)
        for page, slot in zip(pages, slots):
            runtime.memcpyAsync(
                self.arena.slot_ptr(slot),
                self.pool.page_ptr(page),
                self.pool.page_bytes,
                runtime.memcpyDeviceToHost,
                self.d2h.ptr,
            )
        landed = cupy.cuda.get_current_stream().record()
        return slots, self.writers.submit(self._persist, list(pages), slots, landed)

    def _persist(self, pages, slots, landed):
        landed.synchronize()
        for page, slot in zip(pages, slots):
            path = os.path.join(self.spill_dir, f"page-{page:07d}.kv")
            with open(path, "wb") as f:
                # expect: KVG003
                f.write(self.arena.slots[slot].tobytes())
        return slots

    def prefetch(self, slots, pages):
        for slot, page in zip(slots, pages):
            # expect: KVG004
            runtime.memcpyAsync(
                self.pool.page_ptr(page),
                self.arena.slot_ptr(slot),
                self.pool.page_bytes,
                runtime.memcpyHostToDevice,
                self.h2d.ptr,
            )
        loaded = self.h2d.record()
        cupy.cuda.get_current_stream().wait_event(loaded)
        return loaded
