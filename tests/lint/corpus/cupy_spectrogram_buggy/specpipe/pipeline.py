import queue
from typing import Iterable

import cupy as cp
import numpy as np

from .buffers import make_slots
from .config import SpectrogramConfig
from .writer import SpectrogramWriter, WriteJob


class SpectrogramPipeline:
    """Three-stage upload / STFT / download pipeline over a ring of staging slots."""

    def __init__(self, cfg: SpectrogramConfig, writer: SpectrogramWriter):
        self.cfg = cfg
        self._writer = writer
        self._streams = {name: cp.cuda.Stream(non_blocking=True)
                         for name in ("upload", "compute", "download")}
        self._slots = make_slots(cfg)
        self._free_slots: queue.Queue[int] = writer.free_slots
        for slot in self._slots:
            self._free_slots.put(slot.index)
        with self._streams["compute"]:
            self._window = cp.hanning(cfg.n_fft).astype(cp.float32)
            self._frame_index = (cp.arange(cfg.n_fft)[None, :] +
                                 cfg.hop_length * cp.arange(cfg.frames_per_chunk)[:, None])

    def _stft_into(self, d_in: cp.ndarray, d_out: cp.ndarray) -> None:
        frames = d_in[self._frame_index] * self._window
        mag = cp.abs(cp.fft.rfft(frames, n=self.cfg.n_fft, axis=-1))
        if self.cfg.log_scale:
            cp.log1p(mag, out=d_out)
        else:
            d_out[...] = mag

    def run(self, chunks: Iterable[np.ndarray]) -> int:
        upload, compute, download = (self._streams[k] for k in ("upload", "compute", "download"))
        n = 0
        for n, chunk in enumerate(chunks, start=1):
            slot = self._slots[self._free_slots.get()]
            slot.h_in[: chunk.size] = chunk
            slot.h_in[chunk.size:] = 0.0
            # expect: KVG004
            slot.d_in.set(slot.h_in, stream=upload)
            slot.uploaded.record(upload)

            compute.wait_event(slot.uploaded)
            with compute:
                self._stft_into(slot.d_in, slot.d_out)

            # expect: KVG001
            slot.d_out.get(stream=download, out=slot.h_out, blocking=False)
            slot.downloaded.record(download)
            self._writer.submit(WriteJob(chunk_index=n - 1, slot=slot, ready=slot.downloaded))
        return n
