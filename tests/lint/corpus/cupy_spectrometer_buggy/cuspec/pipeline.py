import logging
from typing import Iterable

import cupy as cp
import numpy as np

from cuspec.accumulate import SpectrumAccumulator
from cuspec.buffers import SlotRing
from cuspec.config import SpectrometerConfig
from cuspec.streams import StreamSet

logger = logging.getLogger(__name__)


class Spectrometer:
    def __init__(self, cfg: SpectrometerConfig):
        self.cfg = cfg
        self.streams = StreamSet()
        self.ring = SlotRing(cfg)
        self.acc = SpectrumAccumulator(self.ring.h_out)
        self.window = cp.asarray(np.hanning(2 * cfg.n_channels).astype(np.float32))

    def _upload(self, slot: int, chunk: np.ndarray) -> None:
        ring, up = self.ring, self.streams.upload
        ring.uploaded[slot].synchronize()
        np.copyto(ring.h_stage[slot], chunk.reshape(-1))
        # expect: KVG004
        ring.d_in[slot].set(ring.h_stage[slot], stream=up)
        ring.uploaded[slot].record(up)

    def _compute(self, slot: int) -> None:
        ring, s = self.ring, self.streams.compute
        s.wait_event(ring.uploaded[slot])
        s.wait_event(ring.downloaded[slot])
        with s:
            frames = ring.d_in[slot].reshape(self.cfg.spectra_per_chunk, -1) * self.window
            spec = cp.fft.rfft(frames, axis=1)
            cp.sum(cp.abs(spec) ** 2, axis=0, out=ring.d_out[slot])
        ring.computed[slot].record(s)

    def _download(self, slot: int) -> None:
        ring, dl = self.ring, self.streams.download
        dl.wait_event(ring.computed[slot])
        cp.asnumpy(ring.d_out[slot], stream=dl, out=ring.h_out[slot], blocking=False)
        ring.downloaded[slot].record(dl)
        self.streams.compute.launch_host_func(self.acc.on_chunk_ready, slot)

    def process(self, chunks: Iterable[np.ndarray]) -> np.ndarray:
        n = 0
        for i, chunk in enumerate(chunks):
            slot = i % self.cfg.n_slots
            self._upload(slot, chunk)
            self._compute(slot)
            self._download(slot)
            n += 1
        self.streams.synchronize()
        logger.info("integrated %d chunks, peak channel %d", n, self.acc.peak_channel)
        return self.acc.average()
