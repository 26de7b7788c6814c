import queue
from dataclasses import dataclass
from typing import Any, List, Optional

import numpy as np
from numba import cuda

from tiledrain.kernels import tile_moments
from tiledrain.settings import MOMENTS, OUT_DTYPE, THREADS_PER_BLOCK


@dataclass
class DrainItem:
    seq: int
    d_out: Any
    rows: int
    ready: Optional[Any] = None


class TileProducer:
    def __init__(self, tiles_per_batch: int, sink: "queue.Queue[Optional[DrainItem]]"):
        self.stream = cuda.stream()
        self.tiles_per_batch = tiles_per_batch
        self._sink = sink
        self._pending: List[np.ndarray] = []
        self._seq = 0

    def _launch(self, batch: np.ndarray):
        d_src = cuda.to_device(batch, stream=self.stream)
        d_out = cuda.device_array((batch.shape[0], MOMENTS), dtype=OUT_DTYPE, stream=self.stream)
        blocks = (batch.shape[0] + THREADS_PER_BLOCK - 1) // THREADS_PER_BLOCK
        tile_moments[blocks, THREADS_PER_BLOCK, self.stream](d_src, d_out)
        return d_out

    def _mark(self):
        event = cuda.event(timing=False)
        event.record(self.stream)
        return event

    def _take_batch(self) -> np.ndarray:
        batch = np.ascontiguousarray(np.stack(self._pending))
        self._pending.clear()
        return batch

    def push(self, tile: np.ndarray) -> None:
        self._pending.append(tile)
        if len(self._pending) < self.tiles_per_batch:
            return
        batch = self._take_batch()
        d_out = self._launch(batch)
        self._sink.put(DrainItem(self._seq, d_out, batch.shape[0], ready=self._mark()))
        self._seq += 1

    def flush(self) -> None:
        if self._pending:
            batch = self._take_batch()
            d_out = self._launch(batch)
            self._sink.put(DrainItem(self._seq, d_out, batch.shape[0]))
            self._seq += 1
        self._sink.put(None)
