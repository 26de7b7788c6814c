from __future__ import annotations

import logging
import queue
import threading
from dataclasses import dataclass
from typing import Callable

import cupy as cp
import numpy as np

from .config import RingConfig
from .pipeline import SpectrumBatch
from .ring import PinnedRing

log = logging.getLogger(__name__)


@dataclass
class Detection:
    seq: int
    peak_bins: list[int]
    peak_db: list[float]


class PeakConsumer(threading.Thread):
    """Pulls spectra back to pinned slots on its own stream and reports per-channel peaks."""

    def __init__(
        self,
        cfg: RingConfig,
        in_q: "queue.Queue[SpectrumBatch | None]",
        ring: PinnedRing,
        sink: Callable[[Detection], None],
    ) -> None:
        super().__init__(name="sigring-consumer", daemon=True)
        self.cfg = cfg
        self._in_q = in_q
        self._ring = ring
        self._sink = sink
        self._stream = cp.cuda.Stream(non_blocking=True)

    def run(self) -> None:
        while True:
            batch = self._in_q.get()
            if batch is None:
                break
            try:
                self._handle(batch)
            except Exception:
                log.exception("dropping spectrum %d", batch.seq)

    def _handle(self, batch: SpectrumBatch) -> None:
        idx = self._ring.acquire()
        host = self._ring[idx]
        try:
            # expect: KVG001
            batch.power_db.get(stream=self._stream, out=host)
            snapshot = np.array(host, copy=True)
        finally:
            self._ring.release(idx)
        bins = snapshot.argmax(axis=-1)
        levels = snapshot[np.arange(snapshot.shape[0]), bins]
        self._sink(Detection(batch.seq, bins.tolist(), levels.tolist()))
