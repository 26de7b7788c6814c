"""Spills cold KV pages to local disk, int8-quantised with one absmax scale per page.

Pages leave the GPU through a pinned staging ring on a side stream; quantisation and the
file write happen on a small thread pool once the page has landed."""
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Dict

import cupy
import numpy

from .pinned import PinnedRing


@dataclass
class SpillEntry:
    path: str
    scale: float


class DiskSpiller:
    def __init__(self, pages: cupy.ndarray, compute: cupy.cuda.Stream, root: str,
                 staging_slots: int = 8, writers: int = 2):
        self.pages = pages
        self.compute = compute
        self.root = root
        os.makedirs(root, exist_ok=True)
        self.d2h = cupy.cuda.Stream(non_blocking=True)
        self.ring = PinnedRing(staging_slots, pages.shape[1])
        self.pool = ThreadPoolExecutor(max_workers=writers, thread_name_prefix="kv-spill")
        self.index: Dict[str, SpillEntry] = {}

    def spill(self, key: str, page: int) -> None:
        slot_id, slot = self.ring.acquire()
        written = cupy.cuda.Event(disable_timing=True)
        written.record(self.compute)
        self.d2h.wait_event(written)
        self.pages[page].get(stream=self.d2h, out=slot, blocking=False)
        landed = self.d2h.record()
        # expect: KVG003
        amax = float(numpy.abs(slot).max())
        scale = amax / 127.0 if amax > 0 else 1.0
        path = os.path.join(self.root, f"{key}.q8")
        self.index[key] = SpillEntry(path, scale)
        self.pool.submit(self._write, path, slot_id, slot, landed, scale)

    def _write(self, path: str, slot_id: int, slot: numpy.ndarray, landed, scale: float) -> None:
        try:
            landed.synchronize()
            q = numpy.clip(numpy.rint(slot / scale), -127, 127).astype(numpy.int8)
            q.tofile(path)
        finally:
            self.ring.release(slot_id)

    def close(self) -> None:
        self.pool.shutdown(wait=True)
