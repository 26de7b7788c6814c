"""Worker side of a three-tier offloading connector (GPU -> pinned CPU -> NVMe). Stores are
written through to disk; loads from disk are staged into CPU blocks first."""

import torch

from kv_offload.cpu_gpu import SingleDirectionHandler
from kv_offload.disk_io import DiskIOWorker


class TieredOffloadingWorker:
    def __init__(self, kv_caches, num_cpu_blocks, num_disk_blocks, disk_path):
        gpu_tensors = list(kv_caches.values())
        cpu_tensors = [
            torch.zeros((num_cpu_blocks,) + tuple(t.shape[1:]), dtype=t.dtype, device="cpu",
                        pin_memory=True)
            for t in gpu_tensors
        ]
        self.store_handler = SingleDirectionHandler(gpu_tensors, cpu_tensors, gpu_to_cpu=True)
        self.load_handler = SingleDirectionHandler(gpu_tensors, cpu_tensors, gpu_to_cpu=False)
        self.disk = DiskIOWorker(cpu_tensors, disk_path, num_disk_blocks)

    def store(self, job_id, gpu_blocks, cpu_blocks, disk_blocks=None):
        self.store_handler.transfer_async(job_id, gpu_blocks, cpu_blocks)
        if disk_blocks:
            # write-through: the CPU copy is persisted in the background
            self.disk.submit_writes(cpu_blocks, disk_blocks)

    def load(self, job_id, cpu_blocks, gpu_blocks, disk_blocks=None):
        if disk_blocks:
            self.disk.read_blocks(cpu_blocks, disk_blocks)
        self.load_handler.transfer_async(job_id, cpu_blocks, gpu_blocks)

    def get_finished(self):
        return self.store_handler.get_finished() + self.load_handler.get_finished()
