# SPDX-License-Identifier: Apache-2.0
from collections import deque
from dataclasses import dataclass

import torch

from cpu_kv_offload.config import CPUOffloadConfig
from cpu_kv_offload.transfer import CudaRTBlockMover
from vllm.logger import init_logger

logger = init_logger(__name__)


@dataclass
class PendingJob:
    job_id: int
    is_store: bool
    ready: object
    done: object


class CPUOffloadWorker:
    def __init__(self, config: CPUOffloadConfig, kv_caches: list[torch.Tensor]):
        self.config = config
        device = kv_caches[0].device
        self.gpu_caches = [kv.view(torch.int8).view(kv.shape[0], -1) for kv in kv_caches]
        self.cpu_caches = [
            torch.empty((config.num_cpu_blocks, g.shape[1]), dtype=torch.int8, pin_memory=True)
            for g in self.gpu_caches
        ]
        self.mover = CudaRTBlockMover(config, device.index or 0)
        self.pending: deque[PendingJob] = deque()
        self.free_events: list = []

    def _event(self):
        return self.free_events.pop() if self.free_events else self.mover.new_event()

    def _pointers(self, gpu_ids: list[int], cpu_ids: list[int]):
        gpu_ptrs, cpu_ptrs, sizes = [], [], []
        for gpu, cpu in zip(self.gpu_caches, self.cpu_caches):
            stride = gpu.shape[1]
            for g, c in zip(gpu_ids, cpu_ids):
                gpu_ptrs.append(gpu.data_ptr() + g * stride)
                cpu_ptrs.append(cpu.data_ptr() + c * stride)
                sizes.append(stride)
        return gpu_ptrs, cpu_ptrs, sizes

    def save_blocks(self, job_id: int, gpu_ids: list[int], cpu_ids: list[int]) -> None:
        gpu_ptrs, cpu_ptrs, sizes = self._pointers(gpu_ids, cpu_ids)
        job = PendingJob(job_id, True, self._event(), self._event())
        compute = torch.cuda.current_stream().cuda_stream
        self.mover.store(cpu_ptrs, gpu_ptrs, sizes, compute, job.ready, job.done)
        self.pending.append(job)

    def load_blocks(self, job_id: int, cpu_ids: list[int], gpu_ids: list[int]) -> None:
        gpu_ptrs, cpu_ptrs, sizes = self._pointers(gpu_ids, cpu_ids)
        job = PendingJob(job_id, False, self._event(), self._event())
        compute = torch.cuda.current_stream().cuda_stream
        self.mover.load(gpu_ptrs, cpu_ptrs, sizes, compute, job.ready, job.done)
        self.pending.append(job)

    def get_finished(self) -> list[int]:
        finished = []
        while self.pending and self.mover.query(self.pending[0].done):
            job = self.pending.popleft()
            self.free_events.extend((job.ready, job.done))
            finished.append(job.job_id)
        return finished
