import logging
import os
import queue
import threading

import cupy

from .settings import SpillSettings
from .staging import pinned_staging, staging_view
from .worker import SpillJob, copy_worker_func, write_record

logger = logging.getLogger(__name__)


class DiskKVStore:
    """Spills per-layer KV blocks to files, overlapping D2H + file I/O with compute."""

    def __init__(self, settings: SpillSettings) -> None:
        self.settings = settings
        os.makedirs(settings.spill_dir, exist_ok=True)
        self.copy_queue: "queue.Queue[SpillJob | None]" = queue.Queue(maxsize=settings.queue_depth)
        self.copy_threads = [
            threading.Thread(
                target=copy_worker_func,
                args=(self.copy_queue, settings.cuda_id, settings.staging_elems, settings.dtype),
                daemon=True,
            )
            for _ in range(settings.num_copy_threads)
        ]
        for t in self.copy_threads:
            t.start()
        self._inline_stream = cupy.cuda.Stream(non_blocking=True)
        self._inline_staging = pinned_staging(settings.staging_elems, settings.dtype)
        self._inline_lock = threading.Lock()

    def spill(self, layer_idx: int, step: int, key: cupy.ndarray, value: cupy.ndarray) -> None:
        producer = cupy.cuda.get_current_stream()
        packed = cupy.concatenate((key[None], value[None]), axis=0).astype(self.settings.dtype, copy=False)
        ready = producer.record()
        job = SpillJob(self.settings.record_path(layer_idx, step), packed, ready)
        try:
            self.copy_queue.put_nowait(job)
        except queue.Full:
            logger.debug("copy queue full, spilling layer %d inline", layer_idx)
            self._spill_inline(job)

    def _spill_inline(self, job: SpillJob) -> None:
        with self._inline_lock:
            host = staging_view(self._inline_staging, job.packed.shape)
            # expect: KVG001
            cupy.asnumpy(job.packed, stream=self._inline_stream, out=host, blocking=True)
            self._inline_stream.synchronize()
            write_record(job.path, host)

    def synchronize(self) -> None:
        self.copy_queue.join()

    def close(self) -> None:
        for _ in range(len(self.copy_threads)):
            self.copy_queue.put(None)
        for t in self.copy_threads:
            t.join()
