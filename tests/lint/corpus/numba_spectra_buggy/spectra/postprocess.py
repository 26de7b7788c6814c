from __future__ import annotations

import logging
import threading

import numpy as np

from .device import FrameProcessor

log = logging.getLogger(__name__)


class PeakTracker(threading.Thread):
    """CPU side: tracks the dominant power bin and its exponential average."""

    def __init__(self, proc: FrameProcessor, alpha: float = 0.1) -> None:
        super().__init__(name="peak-tracker", daemon=True)
        self._proc = proc
        self._alpha = alpha
        self.ema = np.zeros(proc.n_bins, dtype=np.float64)
        self.peaks: list[int] = []

    def run(self) -> None:
        while True:
            item = self._proc.results.get()
            if item is None:
                break
            # expect: KVG003
            bins = self._proc.host_bins[item.slot].astype(np.float64)
            self._proc.free_slots.put(item.slot)
            total = float(bins.sum())
            if total > 0.0:
                self.ema = (1.0 - self._alpha) * self.ema + self._alpha * (bins / total)
                self.peaks.append(int(np.argmax(bins)))
            else:
                log.debug("frame %d had no energy", item.seq)
