import logging
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np

import cupy

from .constants import WRITER_THREADS
from .pinned import empty_pinned
from .sink import PendingRecord, RecordSink

logger = logging.getLogger(__name__)


class MomentExporter:
    """Uploads raw batches, reduces them on the compute stream and exports on a copy stream."""

    def __init__(self, sink: RecordSink, device_id: int = 0):
        self._device = cupy.cuda.Device(device_id)
        with self._device:
            self._compute = cupy.cuda.Stream(non_blocking=True)
            self._d2h = cupy.cuda.Stream(non_blocking=True)
        self._sink = sink
        self._writers = ThreadPoolExecutor(max_workers=WRITER_THREADS, thread_name_prefix="moments")
        self._futures: list[Future] = []

    def _reduce(self, raw: np.ndarray) -> cupy.ndarray:
        with self._compute:
            x = cupy.empty(raw.shape, dtype=cupy.float32)
            x.set(raw.astype(np.float32, copy=False), stream=self._compute)
            mean = x.mean(axis=0)
            var = cupy.square(x - mean).mean(axis=0)
            return cupy.stack((mean, var))

    def submit(self, batch_id: int, raw: np.ndarray) -> Future:
        with self._device:
            moments = self._reduce(raw)
            ready = self._compute.record()
            self._d2h.wait_event(ready)
            host = empty_pinned(moments.shape, moments.dtype)
            moments.get(stream=self._d2h, out=host, blocking=False)
            done = self._d2h.record()
        rec = PendingRecord(batch_id=batch_id, host=host, event=done, device_ref=moments)
        fut = self._writers.submit(self._sink.write_record, rec)
        self._futures.append(fut)
        return fut

    def close(self) -> int:
        written = sum(1 for f in self._futures if f.result() is not None)
        self._writers.shutdown(wait=True)
        logger.info("exported %d batches", written)
        return written
