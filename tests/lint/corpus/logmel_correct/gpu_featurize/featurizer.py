import logging
from concurrent.futures import Future, ThreadPoolExecutor

import cupy as cp
import numpy as np

from .dsp import power_spectrum
from .resources import PinnedRing, StreamSet
from .settings import FeaturizerSettings
from .transfer import download_async

logger = logging.getLogger(__name__)


class LogMelFeaturizer:

    def __init__(self, settings: FeaturizerSettings, mel_basis: np.ndarray, sink):
        self.settings = settings
        self._streams = StreamSet()
        with self._streams.compute:
            self._window = cp.hanning(settings.n_fft).astype(cp.float32)
            self._mel_basis = cp.asarray(mel_basis, dtype=cp.float32)
        self._ring = PinnedRing(settings.pinned_slots,
                                (settings.frames_per_batch, settings.n_mels))
        self._pool = ThreadPoolExecutor(max_workers=settings.io_workers,
                                        thread_name_prefix="logmel-io")
        self._sink = sink

    def submit(self, batch_id: int, frames: np.ndarray) -> Future:
        compute = self._streams.compute
        with compute:
            x = cp.asarray(frames, dtype=cp.float32)
            power, _ = power_spectrum(x, self._window, compute)
            mel = power @ self._mel_basis
            cp.log(cp.maximum(mel, self.settings.log_floor), out=mel)
            ready = compute.record()
        self._streams.d2h.wait_event(ready)
        slot, host = self._ring.acquire()
        download_async(mel, host, self._streams.d2h)
        copied = self._streams.d2h.record()
        return self._pool.submit(self._finish, batch_id, slot, host, copied, mel)

    def _finish(self, batch_id: int, slot: int, host: np.ndarray,
                copied: cp.cuda.Event, keepalive: cp.ndarray) -> None:
        try:
            copied.synchronize()
            self._sink.write(batch_id, host)
        finally:
            self._ring.release(slot)
            del keepalive

    def close(self) -> None:
        self._pool.shutdown(wait=True)
