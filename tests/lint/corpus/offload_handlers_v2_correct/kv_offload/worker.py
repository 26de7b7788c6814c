# SPDX-License-Identifier: Apache-2.0
import logging
from dataclasses import dataclass, field
from itertools import count

import torch

from kv_offload.cpu_gpu import CpuGpuOffloadingHandlers, SingleDirectionOffloadingHandler
from kv_offload.spec import CPULoadStoreSpec, GPULoadStoreSpec, TransferResult, TransferSpec

logger = logging.getLogger(__name__)


class OffloadingWorker:
    def __init__(self):
        self.handlers: set[SingleDirectionOffloadingHandler] = set()
        self.transfer_type_to_handler: dict[tuple[str, str], SingleDirectionOffloadingHandler] = {}

    def register_handler(self, src_cls, dst_cls, handler: SingleDirectionOffloadingHandler):
        self.transfer_type_to_handler[(src_cls.medium(), dst_cls.medium())] = handler
        self.handlers.add(handler)

    def transfer_async(self, job_id: int, spec: TransferSpec) -> bool:
        src, dst = spec
        handler = self.transfer_type_to_handler[(src.medium(), dst.medium())]
        try:
            return handler.transfer_async(job_id, spec)
        except Exception:
            logger.exception("Exception in %s->%s transfer %d", src.medium(), dst.medium(), job_id)
            return False

    def get_finished(self) -> list[TransferResult]:
        return [r for handler in self.handlers for r in handler.get_finished()]


@dataclass
class ReqMeta:
    req_id: str
    gpu_block_ids: list[int]
    cpu_block_ids: list[int]


@dataclass
class OffloadingConnectorMetadata:
    reqs_to_load: list[ReqMeta] = field(default_factory=list)
    reqs_to_store: list[ReqMeta] = field(default_factory=list)


class OffloadingConnectorWorker:
    def __init__(self, num_cpu_blocks: int):
        self.num_cpu_blocks = num_cpu_blocks
        self.worker = OffloadingWorker()
        self._job_counter = count()
        self._jobs: dict[int, tuple[str, bool]] = {}
        self._metadata = OffloadingConnectorMetadata()

    def register_kv_caches(self, kv_caches: dict[str, torch.Tensor]) -> None:
        handlers = CpuGpuOffloadingHandlers(kv_caches, self.num_cpu_blocks)
        self.worker.register_handler(GPULoadStoreSpec, CPULoadStoreSpec, handlers.gpu_to_cpu_handler)
        self.worker.register_handler(CPULoadStoreSpec, GPULoadStoreSpec, handlers.cpu_to_gpu_handler)

    def bind_connector_metadata(self, metadata: OffloadingConnectorMetadata) -> None:
        self._metadata = metadata

    def _submit(self, req: ReqMeta, spec: TransferSpec, store: bool) -> None:
        job_id = next(self._job_counter)
        self._jobs[job_id] = (req.req_id, store)
        if not self.worker.transfer_async(job_id, spec):
            logger.warning("transfer for request %s was not submitted", req.req_id)

    def start_load_kv(self) -> None:
        for req in self._metadata.reqs_to_load:
            spec = (CPULoadStoreSpec(req.cpu_block_ids), GPULoadStoreSpec(req.gpu_block_ids))
            self._submit(req, spec, store=False)

    def wait_for_save(self) -> None:
        for req in self._metadata.reqs_to_store:
            spec = (GPULoadStoreSpec(req.gpu_block_ids), CPULoadStoreSpec(req.cpu_block_ids))
            self._submit(req, spec, store=True)

    def get_finished(self) -> tuple[set[str], set[str]]:
        finished_sending, finished_recving = set(), set()
        for result in self.worker.get_finished():
            req_id, store = self._jobs.pop(result.job_id)
            (finished_sending if store else finished_recving).add(req_id)
        return finished_sending, finished_recving
