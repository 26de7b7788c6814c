# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the vLLM project
from __future__ import annotations

import logging

import torch

from .copy_backend import DmaCopyBackend

logger = logging.getLogger(__name__)


class SimpleCPUOffloadWorker:
    """Worker side of the simple CPU offload connector."""

    def __init__(self, num_cpu_blocks: int):
        self.num_cpu_blocks = num_cpu_blocks
        self.gpu_caches: list[torch.Tensor] = []
        self.cpu_caches: list[torch.Tensor] = []
        self.backend = DmaCopyBackend()
        self._done: list[tuple[int, torch.cuda.Event]] = []
        self._pending: dict[int, str] = {}
        self._next_job = 0

    def register_kv_caches(self, kv_caches: dict[str, torch.Tensor]) -> None:
        device = next(iter(kv_caches.values())).device
        for name, gpu in kv_caches.items():
            cpu = torch.empty((self.num_cpu_blocks, *gpu.shape[1:]), dtype=gpu.dtype, pin_memory=True)
            self.gpu_caches.append(gpu)
            self.cpu_caches.append(cpu)
        logger.info("Registered %d KV layers for CPU offload", len(self.gpu_caches))
        self.load_stream = torch.cuda.Stream(device=device)
        self.store_stream = torch.cuda.Stream(device=device)
        self.backend.init(self.gpu_caches, self.cpu_caches, device, self.load_stream, self.store_stream)

    def _submit(self, req_id: str, src: list[int], dst: list[int], is_store: bool) -> int:
        job_id = self._next_job
        self._next_job += 1
        ready = torch.cuda.Event()
        ready.record(torch.cuda.current_stream())
        self._pending[job_id] = req_id
        self.backend.launch_copy(src, dst, is_store, job_id, self._done, ready)
        return job_id

    def save_blocks(self, req_id: str, gpu_blocks: list[int], cpu_blocks: list[int]) -> int:
        return self._submit(req_id, gpu_blocks, cpu_blocks, is_store=True)

    def load_blocks(self, req_id: str, cpu_blocks: list[int], gpu_blocks: list[int]) -> int:
        return self._submit(req_id, cpu_blocks, gpu_blocks, is_store=False)

    def get_finished(self) -> set[str]:
        finished: set[str] = set()
        still_running = []
        while self._done:
            job_id, event = self._done.pop()
            if event.query():
                finished.add(self._pending.pop(job_id))
            else:
                still_running.append((job_id, event))
        self._done.extend(still_running)
        return finished

    def shutdown(self) -> None:
        self.backend.shutdown()
