import logging
import threading
from dataclasses import dataclass
from typing import Any, BinaryIO

import numpy as np

import cupy

from .constants import RECORD_HEADER, RECORD_MAGIC

logger = logging.getLogger(__name__)


@dataclass
class PendingRecord:
    batch_id: int
    host: np.ndarray
    event: cupy.cuda.Event
    device_ref: Any = None  # keeps the device source alive until the copy has landed


class RecordSink:
    def __init__(self, fh: BinaryIO):
        self._fh = fh
        self._lock = threading.Lock()
        self.records_written = 0

    def write_record(self, rec: PendingRecord) -> int:
        rec.event.synchronize()
        rows, cols = rec.host.shape
        header = RECORD_HEADER.pack(RECORD_MAGIC, rec.batch_id, rows, cols)
        with self._lock:
            self._fh.write(header)
            self._fh.write(rec.host.tobytes())
            self.records_written += 1
        rec.device_ref = None
        logger.debug("wrote moments for batch %d", rec.batch_id)
        return rec.batch_id
