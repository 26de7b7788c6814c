import logging
import math
from dataclasses import dataclass

import numpy as np
from numba import cuda

from kv_quant.consumer import PinnedRing, ScaleBatch, ScaleWriter
from kv_quant.constants import LOGGER_NAME, MAX_ROWS_DEFAULT, THREADS_PER_BLOCK
from kv_quant.kernels import row_absmax

logger = logging.getLogger(LOGGER_NAME)


@dataclass
class CalibratorConfig:
    max_rows: int = MAX_ROWS_DEFAULT
    log_stats: bool = False


class ScaleCalibrator:
    """Computes per-row int8 scales of KV blocks on the GPU, off the host thread."""

    def __init__(self, config: CalibratorConfig, writer: ScaleWriter, ring: PinnedRing):
        self.config = config
        self.writer = writer
        self.ring = ring
        self.compute_stream = cuda.stream()
        self.copy_stream = cuda.stream()
        self._d_absmax = cuda.device_array(config.max_rows, dtype=np.float32)

    def submit(self, batch_id: int, kv_block: np.ndarray) -> None:
        rows = kv_block.shape[0]
        assert rows <= self.config.max_rows, f"{rows} rows exceed {self.config.max_rows}"
        d_kv = cuda.to_device(kv_block, stream=self.compute_stream)
        blocks = math.ceil(rows / THREADS_PER_BLOCK)
        row_absmax[blocks, THREADS_PER_BLOCK, self.compute_stream](d_kv, self._d_absmax)

        ready = cuda.event(timing=False)
        ready.record(self.compute_stream)
        ready.wait(self.copy_stream)

        host = self.ring.acquire()
        self._d_absmax.copy_to_host(host, stream=self.copy_stream)
        done = cuda.event(timing=False)
        done.record(self.copy_stream)
        done.wait(self.compute_stream)

        if self.config.log_stats:
            done.synchronize()
            logger.info("batch %d: peak |kv| = %.5f", batch_id, float(host[:rows].max()))
        self.writer.inbox.put(ScaleBatch(batch_id, host, rows, done))

    def close(self) -> None:
        self.writer.inbox.put(None)
        self.writer.join()
