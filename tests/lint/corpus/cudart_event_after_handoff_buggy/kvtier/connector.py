"""Worker-side connector: after each forward, evicted blocks are stored to the host tier
without blocking the model's stream."""

import threading
from typing import List, Set

import torch
from cuda.bindings import runtime as cudart

from .rt import EventPool, ck
from .transfer import StoreJob, TransferThread


class HostTierConnector:
    def __init__(self, num_layers: int, gpu_blocks: int, cpu_blocks: int, block_bytes: int):
        self.gpu_cache = torch.zeros(
            (num_layers, gpu_blocks, block_bytes), dtype=torch.uint8, device="cuda"
        )
        self.cpu_cache = torch.zeros(
            (num_layers, cpu_blocks, block_bytes), dtype=torch.uint8, pin_memory=True
        )
        self.events = EventPool()
        self.transfer = TransferThread(self.gpu_cache, self.cpu_cache, self.events)
        self._stored: Set[int] = set()
        self._lock = threading.Lock()

    def _mark_stored(self, cpu_blocks: List[int]) -> None:
        with self._lock:
            self._stored.update(cpu_blocks)

    def save_blocks(self, gpu_blocks: List[int], cpu_blocks: List[int]) -> None:
        job = StoreJob(
            list(gpu_blocks), list(cpu_blocks),
            ready=self.events.acquire(), done=self.events.acquire(),
            on_done=self._mark_stored,
        )
        self.transfer.submit(job)
        # the copies must start after everything the model queued so far
        ck(cudart.cudaEventRecord(job.ready, torch.cuda.current_stream().cuda_stream))

    def is_stored(self, cpu_block: int) -> bool:
        with self._lock:
            return cpu_block in self._stored


class ModelRunner:
    def __init__(self, model, connector: HostTierConnector):
        self.model = model
        self.connector = connector

    @torch.inference_mode()
    def execute(self, input_ids, block_tables, evict_gpu: List[int], evict_cpu: List[int]):
        logits = self.model(input_ids, block_tables, self.connector.gpu_cache)
        if evict_gpu:
            self.connector.save_blocks(evict_gpu, evict_cpu)
        return logits
