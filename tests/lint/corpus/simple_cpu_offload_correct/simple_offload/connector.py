import itertools
import logging
from dataclasses import dataclass, field

import numpy as np
import torch

from simple_offload.worker import SimpleCPUOffloadWorker

logger = logging.getLogger(__name__)


@dataclass
class ReqTransfer:
    req_id: str
    gpu_block_ids: list[int]
    cpu_block_ids: list[int]


@dataclass
class SimpleCPUOffloadMetadata:
    reqs_to_load: list[ReqTransfer] = field(default_factory=list)
    reqs_to_store: list[ReqTransfer] = field(default_factory=list)


class SimpleCPUOffloadConnectorWorker:
    def __init__(self, num_cpu_blocks: int, kv_caches: dict[str, torch.Tensor]):
        gpu_tensors = list(kv_caches.values())
        cpu_tensors = [
            torch.zeros((num_cpu_blocks, *t.shape[1:]), dtype=t.dtype, pin_memory=True)
            for t in gpu_tensors
        ]
        self.worker = SimpleCPUOffloadWorker(gpu_tensors, cpu_tensors, gpu_tensors[0].device)
        self._job_ids = itertools.count()
        self._job_to_req: dict[int, tuple[str, bool]] = {}

    def _submit(self, req: ReqTransfer, gpu_to_cpu: bool) -> None:
        job_id = next(self._job_ids)
        self._job_to_req[job_id] = (req.req_id, gpu_to_cpu)
        self.worker.submit(
            job_id,
            np.asarray(req.gpu_block_ids, dtype=np.int64),
            np.asarray(req.cpu_block_ids, dtype=np.int64),
            gpu_to_cpu,
        )

    def start_load_kv(self, metadata: SimpleCPUOffloadMetadata) -> None:
        for req in metadata.reqs_to_load:
            self._submit(req, gpu_to_cpu=False)

    def wait_for_save(self, metadata: SimpleCPUOffloadMetadata) -> None:
        for req in metadata.reqs_to_store:
            self._submit(req, gpu_to_cpu=True)

    def get_finished(self) -> tuple[set[str], set[str]]:
        finished_sending: set[str] = set()
        finished_recving: set[str] = set()
        for job_id in self.worker.get_finished():
            req_id, gpu_to_cpu = self._job_to_req.pop(job_id)
            (finished_sending if gpu_to_cpu else finished_recving).add(req_id)
        return finished_sending, finished_recving
