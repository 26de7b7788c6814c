import logging
import threading
from typing import Callable, List

import numpy as np
from numba import cuda

from .constants import FULL_REFRESH_FRACTION
from .table import BiasTable

logger = logging.getLogger(__name__)


class BiasTableUpdater:
    """Uploads staged bias rows on its own stream so the upload overlaps the forward pass."""

    def __init__(self, table: BiasTable, full_refresh_fraction: float = FULL_REFRESH_FRACTION):
        self._table = table
        self._full_rows = max(1, int(table.rows * full_refresh_fraction))
        self._stream = cuda.stream()
        self.last_use = cuda.event(timing=False)
        self.loaded = cuda.event(timing=False)
        self._listeners: List[Callable[[int, int], None]] = []
        self._lock = threading.Lock()

    def add_listener(self, fn: Callable[[int, int], None]) -> None:
        self._listeners.append(fn)

    def record_use(self, compute_stream) -> None:
        self.last_use.record(stream=compute_stream)

    def stage(self, row: int, token_ids: np.ndarray, values: np.ndarray) -> None:
        with self._lock:
            # the previous upload may still be reading the staging rows
            self.loaded.synchronize()
            self._table.stage_row(row, token_ids, values)

    def push(self) -> bool:
        with self._lock:
            lo, hi = self._table.take_dirty()
            if lo >= hi:
                return False
            if hi - lo >= self._full_rows:
                self.last_use.wait(stream=self._stream)
                self._table.device.copy_to_device(self._table.staging, stream=self._stream)
                lo, hi = 0, self._table.rows
            else:
                # expect: KVG004
                self._table.device[lo:hi].copy_to_device(self._table.staging[lo:hi], stream=self._stream)
            self.loaded.record(stream=self._stream)
            self._stream.add_callback(self._on_loaded, (lo, hi))
            return True

    def _on_loaded(self, stream, status, arg) -> None:
        lo, hi = arg
        if status != 0:
            logger.error("bias upload of rows [%d, %d) failed: %s", lo, hi, status)
            return
        for fn in self._listeners:
            fn(lo, hi)
