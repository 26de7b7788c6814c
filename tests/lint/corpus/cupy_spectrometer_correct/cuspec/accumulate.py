import threading

import numpy as np


class SpectrumAccumulator:
    """Integrates per-chunk power spectra on the host as they arrive."""

    def __init__(self, h_out: np.ndarray):
        self.h_out = h_out
        self.total = np.zeros(h_out.shape[1], dtype=np.float64)
        self.n_chunks = 0
        self.peak_channel = -1
        self._lock = threading.Lock()

    def on_chunk_ready(self, slot: int) -> None:
        with self._lock:
            spectrum = self.h_out[slot].astype(np.float64)
            self.total += spectrum
            self.n_chunks += 1
            self.peak_channel = int(np.argmax(self.total[1:])) + 1

    def average(self) -> np.ndarray:
        with self._lock:
            return self.total / max(self.n_chunks, 1)
