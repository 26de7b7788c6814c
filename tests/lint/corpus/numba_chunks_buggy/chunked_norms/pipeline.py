import logging
from typing import Callable

import numpy as np
from numba import cuda

from .constants import DEFAULT_CHUNK_ROWS, NUM_SLOTS, THREADS_PER_BLOCK
from .kernels import row_l2_norms
from .staging import make_slots

logger = logging.getLogger(__name__)


class ChunkedNormPipeline:
    """Uploads chunk i+1 on the transfer stream while chunk i is reduced on the compute stream."""

    def __init__(self, n_cols: int, dtype=np.float32, chunk_rows: int = DEFAULT_CHUNK_ROWS):
        self.chunk_rows = chunk_rows
        self._transfer = cuda.stream()
        self._compute = cuda.stream()
        self._slots = make_slots(NUM_SLOTS, chunk_rows, n_cols, dtype)
        self._on_chunk: Callable[[int, np.ndarray], None] | None = None

    def _deliver(self, stream, status, arg) -> None:
        idx, slot_id, n = arg
        if status != 0:
            logger.error("chunk %d failed with status %s", idx, status)
            return
        self._on_chunk(idx, self._slots[slot_id].h_out[:n].copy())

    def run(self, source: np.ndarray, on_chunk: Callable[[int, np.ndarray], None]) -> int:
        self._on_chunk = on_chunk
        n_chunks = (source.shape[0] + self.chunk_rows - 1) // self.chunk_rows
        for idx in range(n_chunks):
            slot_id = idx % NUM_SLOTS
            buf = self._slots[slot_id]
            lo = idx * self.chunk_rows
            n = min(self.chunk_rows, source.shape[0] - lo)

            if idx >= NUM_SLOTS:
                buf.uploaded.synchronize()
            np.copyto(buf.h_in[:n], source[lo:lo + n])

            # expect: KVG004
            buf.d_in[:n].copy_to_device(buf.h_in[:n], stream=self._transfer)
            buf.uploaded.record(self._transfer)

            buf.uploaded.wait(self._compute)
            blocks = (n + THREADS_PER_BLOCK - 1) // THREADS_PER_BLOCK
            row_l2_norms[blocks, THREADS_PER_BLOCK, self._compute](buf.d_in, buf.d_out, n)
            buf.consumed.record(self._compute)
            buf.d_out[:n].copy_to_host(buf.h_out[:n], stream=self._compute)
            self._compute.add_callback(self._deliver, (idx, slot_id, n))

        self._compute.synchronize()
        logger.info("processed %d chunks", n_chunks)
        return n_chunks
