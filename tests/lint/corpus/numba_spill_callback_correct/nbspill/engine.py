"""Decode loop: appends each step's KV with a numba kernel and spills cold pages."""
import threading
from collections import OrderedDict

import numpy as np
from numba import cuda

from .kernels import append_tokens, launch_dims
from .spiller import PageSpiller


class DecodeLoop:
    def __init__(self, cfg):
        self.cfg = cfg
        self.compute = cuda.stream()
        self.pages = cuda.device_array((cfg.num_pages, cfg.page_elems), dtype=np.float32)
        self._free = list(range(cfg.num_pages))
        self._free_lock = threading.Lock()
        # page -> (seq_id, page_no), least recently appended first
        self._lru = OrderedDict()
        self.spiller = PageSpiller(cfg, self.compute, self._page_freed)

    def _page_freed(self, page_id):
        with self._free_lock:
            self._free.append(page_id)

    def allocate(self, seq_id, page_no):
        with self._free_lock:
            page = self._free.pop()
        self._lru[page] = (seq_id, page_no)
        return page

    def step(self, page_ids, token_slots, values):
        """page_ids / token_slots: int32 numpy arrays, values: (n, token_width) float32."""
        d_ids = cuda.to_device(page_ids, stream=self.compute)
        d_slots = cuda.to_device(token_slots, stream=self.compute)
        d_vals = cuda.to_device(values, stream=self.compute)
        grid, block = launch_dims(len(page_ids), self.cfg.token_width)
        append_tokens[grid, block, self.compute](self.pages, d_ids, d_slots,
                                                 self.cfg.token_width, d_vals)
        for p in page_ids:
            self._lru.move_to_end(int(p))
        with self._free_lock:
            low = len(self._free) < self.cfg.low_watermark
        if low:
            self._evict()

    def _evict(self):
        for _ in range(min(self.cfg.evict_batch, len(self._lru))):
            page, (seq_id, page_no) = self._lru.popitem(last=False)
            self.spiller.spill(self.pages, page, f"{seq_id}-{page_no}")
