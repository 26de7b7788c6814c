"""Worker side of the offloading connector: loads the scheduler asked for are started before
the forward pass, stores of the step's new full blocks after it; finished jobs are reported
to the scheduler through get_finished."""

import itertools
from typing import Dict, List

import torch

from offload_driver.handler import CpuGpuOffloadingHandler


class OffloadingConnectorWorker:
    def __init__(self, num_cpu_blocks: int):
        self.num_cpu_blocks = num_cpu_blocks
        self.job_ids = itertools.count()
        self.job_to_req: Dict[int, str] = {}

    def register_kv_caches(self, kv_caches: Dict[str, torch.Tensor]) -> None:
        self.handler = CpuGpuOffloadingHandler(list(kv_caches.values()), self.num_cpu_blocks)

    def start_load_kv(self, metadata) -> None:
        for req_id, (cpu_blocks, gpu_blocks) in metadata.reqs_to_load.items():
            job_id = next(self.job_ids)
            self.job_to_req[job_id] = req_id
            self.handler.load_async(job_id, cpu_blocks, gpu_blocks)

    def wait_for_save(self, metadata) -> None:
        for req_id, (gpu_blocks, cpu_blocks) in metadata.reqs_to_store.items():
            job_id = next(self.job_ids)
            self.job_to_req[job_id] = req_id
            self.handler.store_async(job_id, gpu_blocks, cpu_blocks)

    def get_finished(self) -> List[str]:
        return [self.job_to_req.pop(j) for j in self.handler.get_finished()]
