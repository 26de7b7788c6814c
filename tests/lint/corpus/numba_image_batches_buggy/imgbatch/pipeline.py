from __future__ import annotations

import logging
from typing import Iterable, Iterator

import numpy as np
from numba import cuda

from . import kernels
from .config import NUM_SLOTS, SCORE_THREADS, THREADS_PER_BLOCK, PipelineConfig

logger = logging.getLogger(__name__)


def _blocks(n: int, threads: int) -> int:
    return (n + threads - 1) // threads


class BatchPipeline:
    """Uploads batch i+1 on a copy stream while batch i is scored."""

    def __init__(self, cfg: PipelineConfig) -> None:
        self.cfg = cfg
        shape = cfg.batch_shape
        self._upload = cuda.stream()
        self._compute = cuda.stream()
        self._h_stage = [cuda.pinned_array(shape, dtype=np.uint8) for _ in range(NUM_SLOTS)]
        self._d_in = [cuda.device_array(shape, dtype=np.uint8) for _ in range(NUM_SLOTS)]
        self._uploaded = [cuda.event(timing=False) for _ in range(NUM_SLOTS)]
        self._d_luma = cuda.device_array(shape[:3], dtype=np.float32)
        self._d_scores = cuda.device_array(cfg.batch_size, dtype=np.float32)
        self._h_scores = cuda.pinned_array(cfg.batch_size, dtype=np.float32)

    def _upload_slot(self, slot: int, batch: np.ndarray) -> int:
        n = batch.shape[0]
        if n > self.cfg.batch_size:
            raise ValueError(f"batch of {n} exceeds configured {self.cfg.batch_size}")
        # the staging buffer may still be feeding the previous upload of this slot
        self._uploaded[slot].synchronize()
        staging = self._h_stage[slot]
        staging[:n] = batch
        # expect: KVG004
        self._d_in[slot].copy_to_device(staging, stream=self._upload)
        self._uploaded[slot].record(self._upload)
        return n

    def _launch(self, slot: int, n: int) -> None:
        s = self._compute
        self._uploaded[slot].wait(s)
        npix = n * self.cfg.height * self.cfg.width
        kernels.zero_scores[_blocks(self.cfg.batch_size, THREADS_PER_BLOCK), THREADS_PER_BLOCK, s](
            self._d_scores
        )
        kernels.rgb_to_luma[_blocks(npix, THREADS_PER_BLOCK), THREADS_PER_BLOCK, s](
            self._d_in[slot], self._d_luma, n
        )
        kernels.laplacian_energy[n, SCORE_THREADS, s](self._d_luma, self._d_scores, n)
        self._d_scores.copy_to_host(self._h_scores, stream=s)

    def _collect(self, n: int) -> np.ndarray:
        # expect: KVG003
        scores = np.sqrt(self._h_scores[:n])
        return scores

    def run(self, batches: Iterable[np.ndarray]) -> Iterator[np.ndarray]:
        it = iter(batches)
        first = next(it, None)
        if first is None:
            return
        slot = 0
        n = self._upload_slot(slot, first)
        while True:
            self._launch(slot, n)
            nxt = next(it, None)
            next_n = self._upload_slot(slot ^ 1, nxt) if nxt is not None else 0
            yield self._collect(n)
            if nxt is None:
                break
            slot ^= 1
            n = next_n
        self._compute.synchronize()
