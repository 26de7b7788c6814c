"""Spills cold KV pages to local files through a ring of pinned staging buffers.

A page is copied device -> pinned staging on a private stream; a stream callback writes the
staging buffer to disk and hands the staging slot and the device page back. Nothing here
blocks the decode loop except running out of staging slots.
"""
import logging
import os
import queue
import threading

import numpy as np
from numba import cuda

logger = logging.getLogger(__name__)


class PageSpiller:
    def __init__(self, cfg, compute_stream, on_page_free):
        self._cfg = cfg
        self._compute = compute_stream
        self._d2h = cuda.stream()
        self._staging = [cuda.pinned_array(cfg.page_elems, dtype=np.float32)
                         for _ in range(cfg.staging_slots)]
        self._free_slots = queue.Queue()
        for i in range(cfg.staging_slots):
            self._free_slots.put(i)
        self._on_page_free = on_page_free
        self._index = {}
        self._lock = threading.Lock()
        os.makedirs(cfg.spill_dir, exist_ok=True)

    def spill(self, pages, page_id, key):
        """Queue page `page_id` of the device pool for spilling under `key`."""
        slot = self._free_slots.get()
        ready = cuda.event(timing=False)
        ready.record(stream=self._compute)
        ready.wait(stream=self._d2h)
        pages[page_id].copy_to_host(self._staging[slot], stream=self._d2h)
        # fires once the copy (and so the step that produced the page) has run
        self._d2h.add_callback(self._persist, (slot, page_id, key))

    def _persist(self, stream, status, arg):
        slot, page_id, key = arg
        path = os.path.join(self._cfg.spill_dir, f"{key}.kv")
        try:
            if status != 0:
                logger.error("spill of %s failed on the device (status %s)", key, status)
                return
            self._staging[slot].tofile(path)
            with self._lock:
                self._index[key] = path
        finally:
            self._free_slots.put(slot)
            self._on_page_free(page_id)

    def spilled(self, key):
        with self._lock:
            return self._index.get(key)

    def close(self):
        self._d2h.synchronize()
        self._compute.synchronize()
