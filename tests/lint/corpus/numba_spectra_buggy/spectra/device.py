from __future__ import annotations

import dataclasses
import queue

import numpy as np
from numba import cuda

from . import kernels


@dataclasses.dataclass
class FrameResult:
    seq: int
    slot: int


class FrameProcessor:
    """Runs the binning kernels and streams the bins back into a pinned ring."""

    def __init__(self, bin_edges: np.ndarray, n_slots: int = 4) -> None:
        self.n_bins = len(bin_edges)
        self._stream = cuda.stream()
        self._d2h_stream = cuda.stream()
        self._d_edges = cuda.to_device(bin_edges.astype(np.float32), stream=self._stream)
        self._d_bins = [cuda.device_array(self.n_bins, dtype=np.float32) for _ in range(n_slots)]
        self.host_bins = cuda.pinned_array((n_slots, self.n_bins), dtype=np.float32)
        self.free_slots: queue.Queue[int] = queue.Queue()
        for s in range(n_slots):
            self.free_slots.put(s)
        self.results: queue.Queue[FrameResult | None] = queue.Queue(maxsize=n_slots)
        self._seq = 0
        self._stream.synchronize()

    def submit(self, frames: np.ndarray) -> None:
        slot = self.free_slots.get()
        d_bins = self._d_bins[slot]
        d_frames = cuda.to_device(frames, stream=self._stream)

        nb = kernels.blocks_for(self.n_bins)
        kernels.zero_bins[nb, kernels.THREADS_PER_BLOCK, self._stream](d_bins)
        nblk = kernels.blocks_for(frames.size)
        kernels.accumulate_power[nblk, kernels.THREADS_PER_BLOCK, self._stream](
            d_frames, self._d_edges, d_bins
        )

        # Readback on its own stream so the next frame's kernels are not held up.
        # expect: KVG001
        d_bins.copy_to_host(self.host_bins[slot], stream=self._d2h_stream)

        self.results.put(FrameResult(seq=self._seq, slot=slot))
        self._seq += 1

    def close(self) -> None:
        self._stream.synchronize()
        self._d2h_stream.synchronize()
        self.results.put(None)
