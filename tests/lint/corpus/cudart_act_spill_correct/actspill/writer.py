from __future__ import annotations

import ctypes
import dataclasses
import logging
import queue
import threading
from typing import Optional

from . import cudart
from .constants import (STAGING_CHUNK_BYTES, STAGING_CHUNKS, cudaEventDisableTiming,
                        cudaHostAllocDefault, cudaMemcpyDeviceToHost, cudaStreamNonBlocking)

logger = logging.getLogger(__name__)


@dataclasses.dataclass
class SpillJob:
    layer: int
    dev_ptr: int
    nbytes: int
    ready: cudart.cudaEvent_t
    path: str


class SpillWriter(threading.Thread):
    """Copies device activations through pinned staging chunks and appends them to disk."""

    def __init__(self) -> None:
        super().__init__(name="act-spill", daemon=True)
        self.stream = cudart.stream_create(cudaStreamNonBlocking)
        self.jobs: "queue.Queue[Optional[SpillJob]]" = queue.Queue()
        self._chunks = [cudart.host_alloc(STAGING_CHUNK_BYTES, cudaHostAllocDefault) for _ in range(STAGING_CHUNKS)]
        self._copied = [cudart.event_create(cudaEventDisableTiming) for _ in range(STAGING_CHUNKS)]
        self.bytes_written = 0

    def run(self) -> None:
        while True:
            job = self.jobs.get()
            if job is None:
                self.jobs.task_done()
                return
            try:
                self._spill(job)
            except Exception:
                logger.exception("spill of layer %d failed", job.layer)
            finally:
                self.jobs.task_done()

    def _spill(self, job: SpillJob) -> None:
        cudart.stream_wait_event(self.stream, job.ready)
        with open(job.path, "wb") as fh:
            offset = 0
            while offset < job.nbytes:
                n = min(STAGING_CHUNK_BYTES, job.nbytes - offset)
                idx = (offset // STAGING_CHUNK_BYTES) % STAGING_CHUNKS
                chunk = self._chunks[idx]
                cudart.memcpy_async(chunk, ctypes.c_void_p(job.dev_ptr + offset), n,
                                    cudaMemcpyDeviceToHost, self.stream)
                cudart.event_record(self._copied[idx], self.stream)
                cudart.event_synchronize(self._copied[idx])
                fh.write(ctypes.string_at(chunk, n))
                offset += n
        self.bytes_written += job.nbytes
