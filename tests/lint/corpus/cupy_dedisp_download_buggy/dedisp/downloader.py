"""Copies dedispersed time series back to pinned host memory on a stream of its own,
on a background thread, and hands them to the sink (candidate search, file writer)."""
import logging
import queue
import threading
from dataclasses import dataclass
from typing import Any, Callable, Optional

import cupy as cp
import cupyx
import numpy as np

logger = logging.getLogger(__name__)


@dataclass
class Chunk:
    seq: int
    slot: int
    d_out: cp.ndarray


class Downloader(threading.Thread):
    def __init__(self, shape, nslots: int, sink: Callable[[int, np.ndarray], Any]):
        super().__init__(name="dedisp-download", daemon=True)
        self.stream = cp.cuda.Stream(non_blocking=True)
        self.host = [cupyx.empty_pinned(shape, dtype=np.float32) for _ in range(nslots)]
        self.sink = sink
        self.jobs: "queue.Queue[Optional[Chunk]]" = queue.Queue()
        # slots whose device buffer may be overwritten again by the compute stream
        self.free: "queue.Queue[int]" = queue.Queue()
        for i in range(nslots):
            self.free.put(i)

    def submit(self, chunk: Chunk) -> None:
        self.jobs.put(chunk)

    def close(self) -> None:
        self.jobs.put(None)
        self.join()

    def run(self) -> None:
        while True:
            chunk = self.jobs.get()
            if chunk is None:
                break
            host = self.host[chunk.slot]
            # expect: KVG001
            chunk.d_out.get(stream=self.stream, out=host)
            self.stream.synchronize()
            try:
                self.sink(chunk.seq, host)
            except Exception:
                logger.exception("sink failed on chunk %d", chunk.seq)
            self.free.put(chunk.slot)
