"""Worker side of the offloading connector (vLLM KVConnectorBase_V1 shape): loads are
started before the forward, stores are started once the forward has been launched."""

import itertools
from typing import Dict, List, Optional, Set

import numpy as np
import torch

from kv_offload.spec import LOAD, STORE, OffloadingConfig, TransferJob
from kv_offload.transfer import CpuGpuBlockMover


class OffloadingConnectorWorker:
    def __init__(self, config: OffloadingConfig):
        self.config = config
        self.mover: Optional[CpuGpuBlockMover] = None
        self._job_ids = itertools.count()
        self._jobs_by_req: Dict[str, Set[int]] = {}

    def register_kv_caches(self, kv_caches: Dict[str, torch.Tensor]) -> None:
        gpu_caches, cpu_caches = [], []
        for tensor in kv_caches.values():
            gpu = tensor.view(tensor.shape[0], -1)
            cpu = torch.zeros((self.config.num_cpu_blocks, gpu.shape[1]), dtype=gpu.dtype,
                              pin_memory=True)
            gpu_caches.append(gpu)
            cpu_caches.append(cpu)
        self.mover = CpuGpuBlockMover(gpu_caches, cpu_caches)

    def _submit(self, req_id: str, job: TransferJob) -> None:
        self._jobs_by_req.setdefault(req_id, set()).add(job.job_id)
        self.mover.submit(job)

    def start_load_kv(self, reqs_to_load: Dict[str, tuple]) -> None:
        for req_id, (gpu_ids, cpu_ids) in reqs_to_load.items():
            job = TransferJob(next(self._job_ids), LOAD, np.asarray(gpu_ids),
                              np.asarray(cpu_ids), req_ids=[req_id])
            self._submit(req_id, job)

    def wait_for_save(self, reqs_to_store: Dict[str, tuple]) -> None:
        if not reqs_to_store:
            return
        ready = torch.cuda.Event()
        ready.record()
        for req_id, (gpu_ids, cpu_ids) in reqs_to_store.items():
            job = TransferJob(next(self._job_ids), STORE, np.asarray(gpu_ids),
                              np.asarray(cpu_ids), ready=ready, req_ids=[req_id])
            self._submit(req_id, job)

    def wait_for_layer_load(self, req_ids: List[str]) -> None:
        for req_id in req_ids:
            self.mover.wait(self._jobs_by_req.get(req_id, ()))

    def get_finished(self) -> Set[str]:
        done = set(self.mover.get_finished())
        finished = set()
        for req_id, jobs in list(self._jobs_by_req.items()):
            jobs -= done
            if not jobs:
                finished.add(req_id)
                del self._jobs_by_req[req_id]
        return finished
