"""Host-side consumer of exported batches."""

import logging
import queue

import numpy as np

logger = logging.getLogger(__name__)


class RowStatsSink:
    """Receives finished batches from stream callbacks (driver thread)."""

    def __init__(self, maxsize: int = 0):
        self.results: "queue.Queue" = queue.Queue(maxsize=maxsize)

    def on_ready(self, stream, status, arg):
        batch_id, slot, exporter = arg
        if status != 0:
            logger.error("batch %s failed with status %s", batch_id, status)
            exporter.release_slot(slot)
            return
        host = exporter.host_slot(slot)
        snapshot = np.array(host, copy=True)
        exporter.release_slot(slot)
        row_norms = np.linalg.norm(snapshot, axis=1)
        self.results.put((batch_id, snapshot, float(row_norms.mean())))
