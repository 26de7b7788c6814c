import logging
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Iterable, List

import numpy as np
from numba import cuda

from binstats.config import AccumulatorConfig
from binstats.kernels import bin_counts, grid_for, zero_fill
from binstats.readback import make_streams, stage_to_host

logger = logging.getLogger(__name__)


class HistogramAccumulator:
    def __init__(self, config: AccumulatorConfig):
        self.config = config
        self._compute, self._copy = make_streams()
        self._d_hist = cuda.to_device(np.zeros(config.num_bins, np.int64), stream=self._compute)
        self._pool = ThreadPoolExecutor(max_workers=config.merge_workers, thread_name_prefix="binstats-merge")
        self._pending: List[Future] = []
        self._totals = np.zeros(config.num_bins, np.int64)
        self._lock = threading.Lock()
        self._rows_since_flush = 0

    def _launch(self, values: np.ndarray) -> None:
        tpb = self.config.threads_per_block
        d_values = cuda.to_device(np.ascontiguousarray(values, dtype=np.float32), stream=self._compute)
        bin_counts[grid_for(len(values), tpb), tpb, self._compute](
            d_values, self.config.lo, self.config.inv_width, self._d_hist
        )
        self._rows_since_flush += len(values)

    def _merge(self, pinned: np.ndarray, copied) -> None:
        copied.synchronize()
        with self._lock:
            self._totals += pinned

    def _stage_and_reset(self) -> None:
        pinned = cuda.pinned_array(self.config.num_bins, dtype=np.int64)
        stage_to_host(self._d_hist, pinned, self._copy)
        copied = cuda.event(timing=False)
        copied.record(stream=self._copy)
        copied.wait(stream=self._compute)
        tpb = self.config.threads_per_block
        zero_fill[grid_for(self.config.num_bins, tpb), tpb, self._compute](self._d_hist)
        self._rows_since_flush = 0
        self._pending.append(self._pool.submit(self._merge, pinned, copied))

    def _flush_async(self) -> None:
        computed = cuda.event(timing=False)
        computed.record(stream=self._compute)
        computed.wait(stream=self._copy)
        self._stage_and_reset()

    def accumulate(self, batches: Iterable[np.ndarray]) -> np.ndarray:
        for values in batches:
            if len(values) == 0:
                continue
            self._launch(values)
            if self._rows_since_flush >= self.config.flush_rows:
                self._flush_async()
        if self._rows_since_flush:
            self._compute.synchronize()
            self._stage_and_reset()
        for fut in self._pending:
            fut.result()
        self._pending.clear()
        logger.debug("histogram total count %d", int(self._totals.sum()))
        return self._totals.copy()

    def close(self) -> None:
        self._pool.shutdown(wait=True)
