import logging
import os

import torch

from kv_offload_plugin.handlers.cpu_gpu import CPUToGPUHandler, GPUToCPUHandler

logger = logging.getLogger(__name__)


class CPUOffloadingWorker:
    def __init__(self, kv_caches: dict[str, torch.Tensor], num_cpu_blocks: int):
        self.gpu_tensors = [t.view(torch.int8).view(t.shape[0], -1) for t in kv_caches.values()]
        self.cpu_tensors = [torch.zeros((num_cpu_blocks, t.shape[1]), dtype=torch.int8,
                                        pin_memory=True) for t in self.gpu_tensors]
        self.store_handler = GPUToCPUHandler(self.gpu_tensors, self.cpu_tensors)
        self.load_handler = CPUToGPUHandler(self.cpu_tensors, self.gpu_tensors)
        self.verify_stores = os.environ.get("KV_OFFLOAD_VERIFY_STORES", "0") == "1"

    def submit_store(self, job_id: int, gpu_blocks: list[int], cpu_blocks: list[int]) -> bool:
        return self.store_handler.transfer_async(job_id, gpu_blocks, cpu_blocks)

    def submit_load(self, job_id: int, cpu_blocks: list[int], gpu_blocks: list[int]) -> bool:
        return self.load_handler.transfer_async(job_id, cpu_blocks, gpu_blocks)

    def _verify(self, gpu_blocks: list[int], cpu_blocks: list[int]) -> int:
        """Bytes that differ between a completed store and its GPU source (the scheduler
        keeps the GPU blocks until the store is reported, so the source is still there)."""
        gpu_idx = torch.tensor(gpu_blocks, device=self.gpu_tensors[0].device)
        mismatched = 0
        for gpu, cpu in zip(self.gpu_tensors, self.cpu_tensors):
            ref = gpu.index_select(0, gpu_idx).to("cpu", non_blocking=True)
            # expect: KVG003
            mismatched += int((ref != cpu[cpu_blocks]).sum())
        return mismatched

    def get_finished(self) -> list[tuple[int, bool]]:
        results = []
        for transfer in self.store_handler.get_finished():
            if self.verify_stores:
                bad = self._verify(transfer.src_blocks, transfer.dst_blocks)
                if bad:
                    logger.error("store job %d: %d bytes differ from the GPU source",
                                 transfer.job_id, bad)
            results.append((transfer.job_id, True))
        results += [(t.job_id, True) for t in self.load_handler.get_finished()]
        return results
