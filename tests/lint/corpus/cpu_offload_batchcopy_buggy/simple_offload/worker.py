from __future__ import annotations

import logging
from collections import deque

import torch

from simple_offload.cuda_batch import build_params, copy_blocks
from simple_offload.metadata import SimpleCPUOffloadMetadata, TransferJob

logger = logging.getLogger(__name__)


class SimpleCPUOffloadWorker:
    def __init__(self, num_cpu_blocks: int):
        self.num_cpu_blocks = num_cpu_blocks
        self.gpu_kv_caches: dict[str, torch.Tensor] = {}
        self.cpu_kv_caches: dict[str, torch.Tensor] = {}
        self.load_stream: torch.cuda.Stream | None = None
        self.store_stream: torch.cuda.Stream | None = None
        self._inflight_stores: deque[tuple[int, torch.cuda.Event]] = deque()
        self._inflight_loads: deque[tuple[int, torch.cuda.Event]] = deque()

    def register_kv_caches(self, kv_caches: dict[str, torch.Tensor]) -> None:
        low, high = torch.cuda.Stream.priority_range()
        self.load_stream = torch.cuda.Stream(priority=high)
        self.store_stream = torch.cuda.Stream(priority=low)
        self.gpu_kv_caches = kv_caches
        for name, gpu in kv_caches.items():
            shape = (self.num_cpu_blocks,) + tuple(gpu.shape[1:])
            self.cpu_kv_caches[name] = torch.empty(shape, dtype=gpu.dtype, pin_memory=True)
        # host blocks are only read once their store has finished
        self._load_params = build_params(self.cpu_kv_caches, self.gpu_kv_caches, self.load_stream)
        self._store_params = build_params(self.gpu_kv_caches, self.cpu_kv_caches, self.store_stream)
        logger.info("Registered %d layers for CPU offload", len(kv_caches))

    def start_load_kv(self, metadata: SimpleCPUOffloadMetadata) -> None:
        if not metadata.load_jobs:
            return
        compute = torch.cuda.current_stream()
        self.load_stream.wait_stream(compute)
        for job in metadata.load_jobs:
            copy_blocks(job.src_block_ids, job.dst_block_ids, self._load_params)
            event = torch.cuda.Event()
            event.record(self.load_stream)
            self._inflight_loads.append((job.job_id, event))
        compute.wait_stream(self.load_stream)

    def submit_stores(self, metadata: SimpleCPUOffloadMetadata) -> None:
        if not metadata.store_jobs:
            return
        self.store_stream.wait_stream(torch.cuda.current_stream())
        for job in metadata.store_jobs:
            self._submit_store(job)

    def _submit_store(self, job: TransferJob) -> None:
        num_bytes = copy_blocks(job.src_block_ids, job.dst_block_ids, self._store_params)
        event = torch.cuda.Event()
        event.record(self.store_stream)
        self._inflight_stores.append((job.job_id, event))
        logger.debug("Store job %d queued (%d bytes)", job.job_id, num_bytes)

    def get_finished(self) -> tuple[set[int], set[int]]:
        done_stores: set[int] = set()
        done_loads: set[int] = set()
        while self._inflight_stores and self._inflight_stores[0][1].query():
            done_stores.add(self._inflight_stores.popleft()[0])
        while self._inflight_loads and self._inflight_loads[0][1].query():
            done_loads.add(self._inflight_loads.popleft()[0])
        return done_stores, done_loads
