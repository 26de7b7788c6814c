"""The decode engine: appends each step's K/V on the current stream, spills cold pages and
brings pages of resumed sequences back."""

import cupy

from cupy_kv.arena import PinnedArena
from cupy_kv.pages import DevicePagePool
from cupy_kv.settings import HEAD_DIM, KV_DTYPE, NUM_DEVICE_PAGES, NUM_HOST_SLOTS, NUM_KV_HEADS, PAGE_TOKENS
from cupy_kv.spiller import PageSpiller


class CupyDecodeEngine:
    def __init__(self, spill_dir):
        page_shape = (2, PAGE_TOKENS, NUM_KV_HEADS, HEAD_DIM)
        self.pool = DevicePagePool(NUM_DEVICE_PAGES, page_shape, KV_DTYPE)
        self.arena = PinnedArena(NUM_HOST_SLOTS, page_shape, KV_DTYPE)
        self.spiller = PageSpiller(self.pool, self.arena, spill_dir)
        self.seq_pages = {}
        self.seq_slots = {}
        self.pending_spills = []

    def step(self, seq_id, pos, kv_token: cupy.ndarray):
        pages = self.seq_pages.setdefault(seq_id, [])
        if pos % PAGE_TOKENS == 0:
            pages.extend(self.pool.alloc(1))
        self.pool.append(pages[-1], pos % PAGE_TOKENS, kv_token)

    def suspend(self, seq_id):
        pages = self.seq_pages.pop(seq_id)
        slots, write = self.spiller.spill(pages)
        self.seq_slots[seq_id] = slots
        self.pending_spills.append((pages, write))

    def reclaim(self):
        """Give back the pages of spills whose writer has finished (so their copies landed)."""
        still_pending = []
        for pages, write in self.pending_spills:
            if write.done():
                self.pool.release(pages)
            else:
                still_pending.append((pages, write))
        self.pending_spills = still_pending

    def resume(self, seq_id):
        slots = self.seq_slots.pop(seq_id)
        pages = self.pool.alloc(len(slots))
        self.spiller.prefetch(slots, pages)
        self.seq_pages[seq_id] = pages
