"""Worker side of the CPU offload connector: owns the GPU KV cache tensors and turns the
scheduler's store / load requests into transfer jobs."""

from typing import List

import torch

from kv_offload.config import CPUOffloadConfig, TransferDirection
from kv_offload.transfer_handler import CpuGpuTransferHandler


class OffloadingConnectorWorker:
    def __init__(self, num_layers: int, num_gpu_blocks: int, page_size_bytes: int, num_cpu_blocks: int):
        self.kv_caches: List[torch.Tensor] = [
            torch.zeros((num_gpu_blocks, page_size_bytes), dtype=torch.int8, device="cuda")
            for _ in range(num_layers)
        ]
        self.handler = CpuGpuTransferHandler(self.kv_caches, CPUOffloadConfig(num_cpu_blocks))
        self._next_job_id = 0

    def _job_id(self) -> int:
        self._next_job_id += 1
        return self._next_job_id

    def start_store(self, gpu_block_ids, cpu_block_ids) -> int:
        job_id = self._job_id()
        self.handler.transfer_async(job_id, TransferDirection.GPU_TO_CPU, gpu_block_ids, cpu_block_ids)
        return job_id

    def start_load(self, cpu_block_ids, gpu_block_ids) -> int:
        job_id = self._job_id()
        self.handler.transfer_async(job_id, TransferDirection.CPU_TO_GPU, gpu_block_ids, cpu_block_ids)
        return job_id

    def get_finished(self):
        return self.handler.get_finished()
