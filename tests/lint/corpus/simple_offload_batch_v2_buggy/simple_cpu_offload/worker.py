"""Worker-side handler: copies run on a background thread off the step loop."""

from __future__ import annotations

import logging
import queue
import threading
from collections import deque
from dataclasses import dataclass

import numpy as np
import torch
from cuda.bindings import driver

from simple_cpu_offload import constants, copy_ops
from simple_cpu_offload.cuda_utils import (
    check,
    create_event,
    create_stream,
    event_done,
    make_memcpy_attrs,
)

logger = logging.getLogger(__name__)


@dataclass
class CopyJob:
    event_idx: int
    is_store: bool
    src_blocks: np.ndarray
    dst_blocks: np.ndarray
    ready_event: driver.CUevent


class SimpleCPUOffloadWorker:
    def __init__(self, num_cpu_blocks: int):
        self.num_cpu_blocks = num_cpu_blocks
        self._copy_queue: "queue.Queue[CopyJob | None]" = queue.Queue()
        self._inflight: deque[tuple[CopyJob, driver.CUevent]] = deque()
        self._lock = threading.Lock()
        self._copy_thread: threading.Thread | None = None

    def register_kv_caches(self, kv_caches: dict[str, torch.Tensor]) -> None:
        gpu = list(kv_caches.values())
        self.device_id = gpu[0].device.index or 0
        self.cpu_caches = [
            torch.zeros((self.num_cpu_blocks,) + t.shape[1:], dtype=t.dtype, pin_memory=True)
            for t in gpu
        ]
        self.gpu_caches = gpu
        self.gpu_base = np.array([t.data_ptr() for t in gpu], dtype=np.uint64)
        self.cpu_base = np.array([t.data_ptr() for t in self.cpu_caches], dtype=np.uint64)
        self.block_bytes = np.array([t.stride(0) * t.element_size() for t in gpu], dtype=np.uint64)

        self.store_stream = create_stream()
        self.load_stream = create_stream()
        self.store_attrs = make_memcpy_attrs(
            constants.STORE_SRC_ACCESS_ORDER, True, self.device_id,
            constants.PREFER_OVERLAP_WITH_COMPUTE,
        )
        self.load_attrs = make_memcpy_attrs(
            constants.LOAD_SRC_ACCESS_ORDER, False, self.device_id,
            constants.PREFER_OVERLAP_WITH_COMPUTE,
        )
        self._copy_thread = threading.Thread(
            target=self._copy_loop, name=constants.COPY_THREAD_NAME, daemon=True
        )
        self._copy_thread.start()

    def submit(self, event_idx: int, is_store: bool, src_blocks: list[int], dst_blocks: list[int]) -> None:
        """Called on the step thread right after the forward pass was enqueued."""
        if not src_blocks:
            return
        ready = create_event()
        compute = driver.CUstream(torch.cuda.current_stream().cuda_stream)
        check(driver.cuEventRecord(ready, compute))
        self._copy_queue.put(
            CopyJob(event_idx, is_store, np.asarray(src_blocks, dtype=np.uint64),
                    np.asarray(dst_blocks, dtype=np.uint64), ready)
        )

    def _copy_loop(self) -> None:
        while True:
            job = self._copy_queue.get()
            if job is None:
                return
            stream = self.store_stream if job.is_store else self.load_stream
            check(driver.cuStreamWaitEvent(stream, job.ready_event, 0))
            if job.is_store:
                copy_ops.store_blocks(self.gpu_base, self.cpu_base, self.block_bytes,
                                      job.src_blocks, job.dst_blocks, self.store_attrs, stream)
            else:
                copy_ops.load_blocks(self.cpu_base, self.gpu_base, self.block_bytes,
                                     job.src_blocks, job.dst_blocks, self.load_attrs, stream)
            done = create_event()
            check(driver.cuEventRecord(done, stream))
            with self._lock:
                self._inflight.append((job, done))

    def get_finished(self) -> tuple[set[int], set[int]]:
        stored: set[int] = set()
        loaded: set[int] = set()
        with self._lock:
            while self._inflight and event_done(self._inflight[0][1]):
                job, _ = self._inflight.popleft()
                (stored if job.is_store else loaded).add(job.event_idx)
        return stored, loaded

    def shutdown(self) -> None:
        self._copy_queue.put(None)
        if self._copy_thread is not None:
            self._copy_thread.join(timeout=2.0)
