from __future__ import annotations

import logging

import cupy

from .config import LOGGER_NAME, TOKENS_PER_BLOCK
from .engine import KVStager

logger = logging.getLogger(LOGGER_NAME)


class WriteThroughScheduler:
    """Appends one decode step of KV and copies every block that became full."""

    def __init__(self, stager: KVStager) -> None:
        self.stager = stager
        self.streams = stager.streams
        self._timings: list[tuple[cupy.cuda.Event, cupy.cuda.Event]] = []

    def step(self, block: int, position: int, kv_per_layer: list[tuple[cupy.ndarray, cupy.ndarray]]) -> int:
        offset = position % TOKENS_PER_BLOCK
        start = self.streams.compute.record()
        for layer, (k, v) in enumerate(kv_per_layer):
            self.stager.append(layer, block, offset, k, v)
        end = self.streams.compute.record()
        self._timings.append((start, end))

        staged = 0
        if offset == TOKENS_PER_BLOCK - 1:
            for layer in range(self.stager.num_layers):
                self.stager.evict(layer, block, after=start)
                staged += 1
        return staged

    def report(self) -> float:
        if not self._timings:
            return 0.0
        _, last = self._timings[-1]
        last.synchronize()
        total = sum(cupy.cuda.get_elapsed_time(s, e) for s, e in self._timings)
        logger.info("append time over %d steps: %.3f ms", len(self._timings), total)
        self._timings.clear()
        return total
