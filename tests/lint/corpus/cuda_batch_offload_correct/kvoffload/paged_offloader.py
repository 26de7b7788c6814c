# SPDX-License-Identifier: Apache-2.0
import itertools
import threading
from typing import Dict, List, Tuple

from cuda.bindings import driver

from kvoffload.constants import PINNED_POOL_BYTES
from kvoffload.cuda_utils import EventPool, PinnedHostPool, check, logger
from kvoffload.offload_worker import OffloadJob, OffloadWorker


class PagedKVOffloader:
    """Copies paged KV blocks of every layer into a pinned host pool."""

    def __init__(self, layer_base_ptrs: List[int], block_bytes: int, device_ordinal: int = 0):
        self.layer_base_ptrs = layer_base_ptrs
        self.block_bytes = block_bytes
        self.context = check(driver.cuCtxGetCurrent())
        self.events = EventPool()
        self.host_pool = PinnedHostPool(PINNED_POOL_BYTES)
        self.cpu_index: Dict[int, int] = {}
        self._lock = threading.Lock()
        self._inflight = 0
        self._idle = threading.Condition(self._lock)
        self._ids = itertools.count()
        self._worker = OffloadWorker(self.context, device_ordinal)
        self._worker.start()

    def _plan(self, block_ids: List[int], host_off: int) -> Tuple[List[int], List[int], List[int]]:
        srcs, dsts, sizes = [], [], []
        cursor = int(self.host_pool.base) + host_off
        for block_id in block_ids:
            for base in self.layer_base_ptrs:
                srcs.append(base + block_id * self.block_bytes)
                dsts.append(cursor)
                sizes.append(self.block_bytes)
                cursor += self.block_bytes
        return srcs, dsts, sizes

    def offload(self, block_ids: List[int], compute_stream) -> int:
        total = len(block_ids) * len(self.layer_base_ptrs) * self.block_bytes
        host_off, host_len = self.host_pool.alloc(total)
        srcs, dsts, sizes = self._plan(block_ids, host_off)
        event = self.events.get()
        check(driver.cuEventRecord(event, compute_stream))
        job = OffloadJob(next(self._ids), block_ids, srcs, dsts, sizes, event, (host_off, host_len),
                         on_complete=self._finish)
        with self._lock:
            self._inflight += 1
        self._worker.submit(job)
        return job.job_id

    def _finish(self, job: OffloadJob) -> None:
        self.events.put(job.ready_event)
        stride = len(self.layer_base_ptrs) * self.block_bytes
        with self._lock:
            for i, block_id in enumerate(job.block_ids):
                self.cpu_index[block_id] = job.host_extent[0] + i * stride
            self._inflight -= 1
            self._idle.notify_all()
        logger.debug("job %d: %d blocks offloaded", job.job_id, len(job.block_ids))

    def wait_all(self) -> None:
        with self._idle:
            while self._inflight:
                self._idle.wait()
