import logging
import queue

import numpy as np
from numba import cuda

from kvquant.buffers import HostSlotPool
from kvquant.constants import THREADS_PER_BLOCK, TILE_COLS, TILE_ROWS
from kvquant.kernels import quantize_rows, row_absmax

logger = logging.getLogger(__name__)


class QuantizePipeline:
    """H2D on one stream, kernels on another, D2H on a third; completed chunks
    are announced from a stream callback through ``results``."""

    def __init__(self, pool: HostSlotPool, results: "queue.Queue"):
        self.pool = pool
        self.results = results
        self.h2d_stream = cuda.stream()
        self.compute_stream = cuda.stream()
        self.d2h_stream = cuda.stream()

    def submit(self, chunk_id: int, rows: np.ndarray) -> None:
        n, cols = rows.shape
        assert cols == self.pool.cols and n <= self.pool.max_rows
        slot = self.pool.acquire()

        d_in = cuda.to_device(rows, stream=self.h2d_stream)
        staged = cuda.event(timing=False)
        staged.record(self.h2d_stream)
        staged.wait(self.compute_stream)

        d_scales = cuda.device_array(n, dtype=np.float32, stream=self.compute_stream)
        d_out = cuda.device_array((n, cols), dtype=np.int8, stream=self.compute_stream)
        row_absmax[n, THREADS_PER_BLOCK, self.compute_stream](d_in, d_scales)
        scales_ready = cuda.event(timing=False)
        scales_ready.record(self.compute_stream)

        grid = ((n + TILE_ROWS - 1) // TILE_ROWS, (cols + TILE_COLS - 1) // TILE_COLS)
        quantize_rows[grid, (TILE_ROWS, TILE_COLS), self.compute_stream](d_in, d_scales, d_out)
        quant_ready = cuda.event(timing=False)
        quant_ready.record(self.compute_stream)

        scales_ready.wait(self.d2h_stream)
        quant_ready.wait(self.d2h_stream)
        slot.fetch(d_scales, d_out, n, self.d2h_stream)

        keepalive = (d_in, d_scales, d_out)
        self.d2h_stream.add_callback(self._on_copied, (chunk_id, n, slot, keepalive))

    def _on_copied(self, stream, status, arg) -> None:
        chunk_id, n, slot, _ = arg
        if status != 0:
            logger.error("Chunk %d failed with status %s", chunk_id, status)
            self.pool.release(slot)
            return
        self.results.put((chunk_id, n, slot))

    def close(self) -> None:
        self.d2h_stream.synchronize()
        self.results.put(None)
