import logging
import math
from typing import Optional

import numpy as np
from numba import cuda

from .constants import THREADS_PER_BLOCK_1D, THREADS_PER_BLOCK_2D
from .kernels import apply_bias_kernel, count_biased_kernel
from .table import BiasTable
from .updater import BiasTableUpdater

logger = logging.getLogger(__name__)


class LogitsBiasRunner:

    def __init__(self, table: BiasTable, updater: BiasTableUpdater, compute_stream=None):
        self._table = table
        self._updater = updater
        self._compute = compute_stream if compute_stream is not None else cuda.stream()
        self._counter_dev = cuda.to_device(np.zeros(1, dtype=np.int64), stream=self._compute)
        self._counter_host = cuda.pinned_array(1, dtype=np.int64)
        self.biased_rows_seen = 0

    def step(self, logits_dev, row_ids_host: np.ndarray, refresh: bool = True) -> None:
        row_ids = cuda.to_device(row_ids_host.astype(np.int32), stream=self._compute)
        self._updater.loaded.wait(stream=self._compute)

        num_seqs, vocab = logits_dev.shape
        seqs_per_block, cols_per_block = THREADS_PER_BLOCK_2D
        grid = (math.ceil(num_seqs / seqs_per_block), math.ceil(vocab / cols_per_block))
        apply_bias_kernel[grid, THREADS_PER_BLOCK_2D, self._compute](logits_dev, self._table.device, row_ids)
        count_biased_kernel[math.ceil(num_seqs / THREADS_PER_BLOCK_1D), THREADS_PER_BLOCK_1D,
                            self._compute](row_ids, self._counter_dev)
        self._updater.record_use(self._compute)

        self._counter_dev.copy_to_host(self._counter_host, stream=self._compute)
        self._compute.add_callback(self._on_counter, None)
        if refresh:
            self._updater.push()

    def _on_counter(self, stream, status, arg) -> None:
        if status == 0:
            self.biased_rows_seen = int(self._counter_host[0])

    @property
    def compute_stream(self):
        return self._compute
