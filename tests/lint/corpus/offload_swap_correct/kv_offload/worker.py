import logging

import numpy as np
import torch

from kv_offload.cpu_gpu import CpuGpuOffloadingHandlers
from kv_offload.spec import (CPULoadStoreSpec, GPULoadStoreSpec, OffloadingHandler,
                             TransferResult, TransferType)

logger = logging.getLogger(__name__)


class OffloadingWorker:
    """Connector worker side: routes jobs to the handler for their direction."""

    def __init__(self, kv_caches: dict[str, torch.Tensor], num_cpu_blocks: int):
        handlers = CpuGpuOffloadingHandlers(kv_caches, num_cpu_blocks)
        self.handlers: dict[TransferType, OffloadingHandler] = {
            ("GPU", "CPU"): handlers.gpu_to_cpu_handler,
            ("CPU", "GPU"): handlers.cpu_to_gpu_handler,
        }
        self._job_counter = 0
        self._pending: dict[int, str] = {}

    def _submit(self, req_id: str, src, dst) -> int:
        job_id = self._job_counter
        self._job_counter += 1
        handler = self.handlers[(src.medium, dst.medium)]
        if not handler.transfer_async(job_id, (src, dst)):
            raise RuntimeError(f"transfer {job_id} for {req_id} was rejected")
        self._pending[job_id] = req_id
        return job_id

    def start_store_kv(self, req_id: str, gpu_blocks: list[int], cpu_blocks: list[int]) -> int:
        return self._submit(req_id, GPULoadStoreSpec(np.asarray(gpu_blocks, dtype=np.int64)),
                            CPULoadStoreSpec(np.asarray(cpu_blocks, dtype=np.int64)))

    def start_load_kv(self, req_id: str, cpu_blocks: list[int], gpu_blocks: list[int]) -> int:
        return self._submit(req_id, CPULoadStoreSpec(np.asarray(cpu_blocks, dtype=np.int64)),
                            GPULoadStoreSpec(np.asarray(gpu_blocks, dtype=np.int64)))

    def get_finished(self) -> list[tuple[str, TransferResult]]:
        finished = []
        for handler in self.handlers.values():
            for result in handler.get_finished():
                req_id = self._pending.pop(result.job_id)
                logger.debug("job %d (%s) done in %.4fs", result.job_id, req_id,
                             result.transfer_time)
                finished.append((req_id, result))
        return finished
