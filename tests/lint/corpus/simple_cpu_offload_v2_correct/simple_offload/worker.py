# SPDX-License-Identifier: Apache-2.0
from collections import deque
from dataclasses import dataclass

import torch

from vllm.logger import init_logger

from .constants import LOAD_SRC_ACCESS_ORDER, STORE_SRC_ACCESS_ORDER
from .dma import BatchCopier

logger = init_logger(__name__)


@dataclass
class PendingTransfer:
    job_id: int
    event: torch.cuda.Event
    num_bytes: int


class SimpleCPUOffloadWorker:
    def __init__(self, num_cpu_blocks: int):
        self.num_cpu_blocks = num_cpu_blocks
        self._pending_stores: deque[PendingTransfer] = deque()
        self._pending_loads: deque[PendingTransfer] = deque()
        self._drained_stores: list[int] = []

    def register_kv_caches(self, kv_caches: dict[str, torch.Tensor]) -> None:
        self.gpu_caches = list(kv_caches.values())
        self.cpu_caches = [
            torch.empty(
                (self.num_cpu_blocks, *t.shape[1:]),
                dtype=t.dtype,
                device="cpu",
                pin_memory=True,
            )
            for t in self.gpu_caches
        ]
        self.store_stream = torch.cuda.Stream()
        self.load_stream = torch.cuda.Stream()
        self._store_copier = BatchCopier(
            self.gpu_caches, self.cpu_caches, self.store_stream, STORE_SRC_ACCESS_ORDER
        )
        self._load_copier = BatchCopier(
            self.cpu_caches, self.gpu_caches, self.load_stream, LOAD_SRC_ACCESS_ORDER
        )
        logger.info("Registered %d layers for CPU offload", len(self.gpu_caches))

    def submit_store(self, job_id: int, gpu_block_ids: list[int], cpu_block_ids: list[int]) -> None:
        self.store_stream.wait_stream(torch.cuda.current_stream())
        num_bytes = self._store_copier.copy(gpu_block_ids, cpu_block_ids)
        event = torch.cuda.Event()
        event.record(self.store_stream)
        self._pending_stores.append(PendingTransfer(job_id, event, num_bytes))

    def submit_load(self, job_id: int, cpu_block_ids: list[int], gpu_block_ids: list[int]) -> None:
        # Host blocks must hold their final bytes before they are read.
        self.drain_stores()
        self.load_stream.wait_stream(torch.cuda.current_stream())
        num_bytes = self._load_copier.copy(cpu_block_ids, gpu_block_ids)
        event = torch.cuda.Event()
        event.record(self.load_stream)
        self._pending_loads.append(PendingTransfer(job_id, event, num_bytes))

    def wait_for_loads(self) -> None:
        current = torch.cuda.current_stream()
        for transfer in self._pending_loads:
            current.wait_event(transfer.event)

    def drain_stores(self) -> None:
        while self._pending_stores:
            transfer = self._pending_stores.popleft()
            transfer.event.synchronize()
            self._drained_stores.append(transfer.job_id)

    def poll(self) -> tuple[list[int], list[int]]:
        stored, self._drained_stores = self._drained_stores, []
        loaded = []
        while self._pending_stores and self._pending_stores[0].event.query():
            stored.append(self._pending_stores.popleft().job_id)
        while self._pending_loads and self._pending_loads[0].event.query():
            loaded.append(self._pending_loads.popleft().job_id)
        return stored, loaded
