from __future__ import annotations

import queue
from dataclasses import dataclass

import cupy as cp
import numpy as np

from .config import RingConfig, Window

_WINDOWS = {
    Window.HANN: cp.hanning,
    Window.BLACKMAN: cp.blackman,
    Window.RECT: cp.ones,
}


@dataclass
class SpectrumBatch:
    seq: int
    power_db: cp.ndarray  # (channels, n_bins) float32, device resident
    ready: cp.cuda.Event  # recorded on the front-end stream after power_db is final


class SpectralFrontEnd:
    """Windowed real FFT of multichannel frames on a dedicated non-blocking stream."""

    def __init__(self, cfg: RingConfig, out_q: "queue.Queue[SpectrumBatch | None]") -> None:
        self.cfg = cfg
        self.stream = cp.cuda.Stream(non_blocking=True)
        self._out_q = out_q
        self._seq = 0
        with self.stream:
            self._window = _WINDOWS[cfg.window](cfg.frame_len).astype(cp.float32)

    def submit(self, raw: np.ndarray) -> int:
        if raw.shape != (self.cfg.channels, self.cfg.frame_len):
            raise ValueError(f"expected {(self.cfg.channels, self.cfg.frame_len)}, got {raw.shape}")
        with self.stream:
            d_raw = cp.asarray(raw, dtype=cp.float32)
            spec = cp.fft.rfft(d_raw * self._window, axis=-1)
            power = cp.square(cp.abs(spec))
            power_db = 10.0 * cp.log10(power + 1e-20)
            cp.maximum(power_db, self.cfg.floor_db, out=power_db)
            ready = cp.cuda.Event(disable_timing=True)
            ready.record(self.stream)
        seq = self._seq
        self._seq += 1
        self._out_q.put(SpectrumBatch(seq, power_db, ready))
        return seq

    def close(self) -> None:
        self._out_q.put(None)
