# SPDX-License-Identifier: Apache-2.0
from dataclasses import dataclass, field

import torch

from vllm.logger import init_logger

from .constants import DEFAULT_NUM_CPU_BLOCKS
from .worker import SimpleCPUOffloadWorker

logger = init_logger(__name__)


@dataclass
class TransferJob:
    job_id: int
    req_id: str
    src_block_ids: list[int]
    dst_block_ids: list[int]


@dataclass
class SimpleCPUOffloadMetadata:
    loads: list[TransferJob] = field(default_factory=list)
    stores: list[TransferJob] = field(default_factory=list)


class SimpleCPUOffloadConnectorWorker:
    def __init__(self, num_cpu_blocks: int = DEFAULT_NUM_CPU_BLOCKS):
        self.worker = SimpleCPUOffloadWorker(num_cpu_blocks)
        self._metadata: SimpleCPUOffloadMetadata | None = None
        self._job_to_req: dict[int, str] = {}

    def register_kv_caches(self, kv_caches: dict[str, torch.Tensor]) -> None:
        self.worker.register_kv_caches(kv_caches)

    def bind_connector_metadata(self, metadata: SimpleCPUOffloadMetadata) -> None:
        self._metadata = metadata

    def start_load_kv(self) -> None:
        assert self._metadata is not None
        for job in self._metadata.loads:
            self._job_to_req[job.job_id] = job.req_id
            self.worker.submit_load(job.job_id, job.src_block_ids, job.dst_block_ids)
        self.worker.wait_for_loads()

    def wait_for_save(self) -> None:
        assert self._metadata is not None
        for job in self._metadata.stores:
            self._job_to_req[job.job_id] = job.req_id
            self.worker.submit_store(job.job_id, job.src_block_ids, job.dst_block_ids)

    def get_finished(self) -> tuple[set[str], set[str]]:
        stored, loaded = self.worker.poll()
        finished_sending = {self._job_to_req.pop(j) for j in stored}
        finished_recving = {self._job_to_req.pop(j) for j in loaded}
        return finished_sending, finished_recving
