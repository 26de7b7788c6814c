import logging
import queue
import threading
from dataclasses import dataclass
from typing import Any, Callable, Optional

import numpy as np
from numba import cuda

from kv_quant.constants import HOST_BUFFER_DEPTH, INT8_QMAX, LOGGER_NAME

logger = logging.getLogger(LOGGER_NAME)


class PinnedRing:
    """Small ring of page-locked host buffers handed between threads."""

    def __init__(self, rows: int, depth: int = HOST_BUFFER_DEPTH):
        self._free: "queue.Queue[np.ndarray]" = queue.Queue()
        for _ in range(depth):
            self._free.put(cuda.pinned_array(rows, dtype=np.float32))

    def acquire(self) -> np.ndarray:
        return self._free.get()

    def release(self, buf: np.ndarray) -> None:
        self._free.put(buf)


@dataclass
class ScaleBatch:
    batch_id: int
    host: np.ndarray
    rows: int
    done: Any


class ScaleWriter(threading.Thread):

    def __init__(self, ring: PinnedRing, sink: Callable[[int, np.ndarray], None]):
        super().__init__(name="kv-quant-scale-writer", daemon=True)
        self.ring = ring
        self.sink = sink
        self.inbox: "queue.Queue[Optional[ScaleBatch]]" = queue.Queue()

    def run(self) -> None:
        while True:
            item = self.inbox.get()
            if item is None:
                return
            item.done.synchronize()
            scales = item.host[:item.rows] / INT8_QMAX
            self.ring.release(item.host)
            self.sink(item.batch_id, scales)
            logger.debug("batch %d: %d scales", item.batch_id, item.rows)
