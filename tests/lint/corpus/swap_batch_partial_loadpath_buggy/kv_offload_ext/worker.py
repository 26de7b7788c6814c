import torch

from kv_offload_ext.handler import BlockCopyHandler


class CpuGpuOffloadingWorker:
    def __init__(self, kv_caches: dict[str, torch.Tensor], num_cpu_blocks: int):
        gpu = [t.view(torch.int8).view(t.shape[0], -1) for t in kv_caches.values()]
        cpu = [torch.zeros((num_cpu_blocks, t.shape[1]), dtype=torch.int8, pin_memory=True)
               for t in gpu]
        self.store_handler = BlockCopyHandler(gpu, cpu, gpu_to_cpu=True)
        self.load_handler = BlockCopyHandler(gpu, cpu, gpu_to_cpu=False)

    def submit_store(self, job_id: int, gpu_blocks: list[int], cpu_blocks: list[int]) -> bool:
        self.store_handler.transfer_async(job_id, gpu_blocks, cpu_blocks)
        return True

    def submit_load(self, job_id: int, cpu_blocks: list[int], gpu_blocks: list[int]) -> bool:
        self.load_handler.transfer_async(job_id, cpu_blocks, gpu_blocks)
        return True

    def get_finished(self) -> list[int]:
        return self.store_handler.get_finished() + self.load_handler.get_finished()
