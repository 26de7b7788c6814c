from typing import Iterable

import torch

from kv_aoffload.config import TransferConfig
from kv_aoffload.jobs import TransferJob
from kv_aoffload.transfer_loop import TransferLoop


class OffloadingConnectorWorker:
    def __init__(self, vllm_config):
        self.config = TransferConfig.from_vllm_config(vllm_config)
        # one event marks the end of the step's forward for every store of the step
        self._step_done = torch.cuda.Event()

    def register_kv_caches(self, kv_caches: dict[str, torch.Tensor]) -> None:
        gpu = [t.view(t.shape[0], -1) for t in kv_caches.values()]
        cpu = [torch.empty((self.config.num_cpu_blocks, t.shape[1]), dtype=t.dtype,
                           pin_memory=True) for t in gpu]
        device = gpu[0].device
        self.store_stream = torch.cuda.Stream(device)
        self.load_stream = torch.cuda.Stream(device)
        self._loop = TransferLoop(self.config, gpu, cpu)

    def start_load_kv(self, loads: Iterable[tuple[int, list[int], list[int]]]) -> None:
        ready = torch.cuda.Event()
        ready.record()
        for job_id, cpu_blocks, gpu_blocks in loads:
            job = TransferJob(job_id, cpu_blocks, gpu_blocks, False, self.load_stream, ready,
                              torch.cuda.Event())
            self._loop.submit(job)

    def wait_for_save(self, stores: Iterable[tuple[int, list[int], list[int]]]) -> None:
        # recorded before any job is handed over: the loop thread may wait on it at once
        self._step_done.record()
        for job_id, gpu_blocks, cpu_blocks in stores:
            job = TransferJob(job_id, gpu_blocks, cpu_blocks, True, self.store_stream,
                              self._step_done, torch.cuda.Event())
            self._loop.submit(job)

    def get_finished(self) -> list[int]:
        issued = self._loop.issued
        finished = []
        while issued and issued[0].done.query():
            finished.append(issued.popleft().job_id)
        return finished
