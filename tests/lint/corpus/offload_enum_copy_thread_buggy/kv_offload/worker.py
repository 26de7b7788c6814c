from typing import Dict, List, Tuple

import torch

from kv_offload.handler import SingleDirectionOffloadingHandler, TransferResult

GPU, CPU = "GPU", "CPU"


class OffloadingWorker:
    def __init__(self):
        self.transfer_type_to_handler: Dict[Tuple[str, str], SingleDirectionOffloadingHandler] = {}
        self.handlers: List[SingleDirectionOffloadingHandler] = []

    def register_handler(self, src: str, dst: str, handler: SingleDirectionOffloadingHandler) -> None:
        self.transfer_type_to_handler[(src, dst)] = handler
        self.handlers.append(handler)

    def transfer_async(self, job_id: int, spec) -> bool:
        (src_medium, src_blocks), (dst_medium, dst_blocks) = spec
        handler = self.transfer_type_to_handler[(src_medium, dst_medium)]
        return handler.transfer_async(job_id, src_blocks, dst_blocks)

    def get_finished(self) -> List[TransferResult]:
        return [r for h in self.handlers for r in h.get_finished()]


class CpuGpuOffloadingWorker:
    """Worker side of the connector: owns the pinned CPU mirror of every KV layer."""

    def __init__(self, num_cpu_blocks: int):
        self.num_cpu_blocks = num_cpu_blocks
        self.worker = OffloadingWorker()
        self._next_job_id = 0
        self._job_reqs: Dict[int, str] = {}

    def register_kv_caches(self, kv_caches: Dict[str, torch.Tensor]) -> None:
        gpu_tensors = [t.view(t.shape[0], -1) for t in kv_caches.values()]
        cpu_tensors = [torch.zeros((self.num_cpu_blocks, t.shape[1]), dtype=t.dtype,
                                   pin_memory=True) for t in gpu_tensors]
        device = gpu_tensors[0].device
        self.worker.register_handler(GPU, CPU, SingleDirectionOffloadingHandler(
            gpu_tensors, cpu_tensors, gpu_to_cpu=True, device=device))
        self.worker.register_handler(CPU, GPU, SingleDirectionOffloadingHandler(
            cpu_tensors, gpu_tensors, gpu_to_cpu=False, device=device))

    def _submit(self, req_id: str, spec) -> None:
        job_id = self._next_job_id
        self._next_job_id += 1
        self._job_reqs[job_id] = req_id
        self.worker.transfer_async(job_id, spec)

    def start_load_kv(self, metadata) -> None:
        for req_id, (cpu_blocks, gpu_blocks) in metadata.reqs_to_load.items():
            self._submit(req_id, ((CPU, cpu_blocks), (GPU, gpu_blocks)))

    def wait_for_save(self, metadata) -> None:
        for req_id, (gpu_blocks, cpu_blocks) in metadata.reqs_to_store.items():
            self._submit(req_id, ((GPU, gpu_blocks), (CPU, cpu_blocks)))

    def get_finished(self) -> List[str]:
        return [self._job_reqs.pop(job_id) for job_id, ok in self.worker.get_finished() if ok]
