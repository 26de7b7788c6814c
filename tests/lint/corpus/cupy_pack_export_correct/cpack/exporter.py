"""Exports a request's prefix pages to disk.

The pages are gathered into a contiguous device staging buffer by a kernel on the pack
stream, then copied to a pinned buffer on the d2h stream, so the gather of the next export
overlaps the transfer of this one. Two staging/pinned slot pairs alternate; a slot comes
back from the writer once its file is written (its transfer has landed by then)."""
import queue
from typing import List

import cupy
import cupyx
import numpy

from .kernels import gather_pages
from .writer import PrefixFileWriter


class PrefixExporter:
    def __init__(self, pages: cupy.ndarray, compute: cupy.cuda.Stream, root: str,
                 max_pages: int = 256, slots: int = 2):
        self.pages = pages
        self.compute = compute
        self.pack = cupy.cuda.Stream(non_blocking=True)
        self.d2h = cupy.cuda.Stream(non_blocking=True)
        shape = (max_pages, pages.shape[1])
        self.staging = [cupy.empty(shape, dtype=pages.dtype) for _ in range(slots)]
        self.host = [cupyx.empty_pinned(shape, dtype=numpy.float16) for _ in range(slots)]
        self.free: "queue.Queue[int]" = queue.Queue()
        for i in range(slots):
            self.free.put(i)
        self.writer = PrefixFileWriter(root, self.free.put)

    def export(self, key: str, page_ids: List[int]) -> None:
        n = len(page_ids)
        slot = self.free.get()
        staging, host = self.staging[slot][:n], self.host[slot][:n]
        written = self.compute.record()
        self.pack.wait_event(written)
        with self.pack:
            ids = cupy.asarray(numpy.asarray(page_ids, dtype=numpy.int32))
            gather_pages(self.pages, ids, staging)
        # the transfer reads what the gather wrote
        self.d2h.wait_event(self.pack.record())
        staging.get(stream=self.d2h, out=host, blocking=False)
        self.writer.submit(key, slot, host, self.d2h.record())

    def close(self) -> None:
        self.d2h.synchronize()
        self.writer.close()
