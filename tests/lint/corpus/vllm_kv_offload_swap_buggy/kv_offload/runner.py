from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np
import torch

from .cpu_gpu import CpuGpuOffloadingHandler
from .mediums import CPULoadStoreSpec, GPULoadStoreSpec
from .worker import OffloadingWorker


@dataclass
class OffloadStepMetadata:
    # req_id -> (gpu block ids, cpu block ids)
    loads: dict[str, tuple[list[int], list[int]]] = field(default_factory=dict)
    stores: dict[str, tuple[list[int], list[int]]] = field(default_factory=dict)


class KVOffloadModelRunnerMixin:
    """Hooks the offloading worker around ``GPUModelRunner.execute_model``."""

    model: torch.nn.Module
    kv_caches: dict[str, torch.Tensor]

    def init_kv_offload(self, gpu_block_size: int, cpu_block_size: int,
                        num_cpu_blocks: int) -> None:
        self.offload_worker = OffloadingWorker()
        handler = CpuGpuOffloadingHandler(gpu_block_size, cpu_block_size,
                                          num_cpu_blocks, self.kv_caches)
        self.offload_worker.register_handler(CPULoadStoreSpec, GPULoadStoreSpec, handler)
        self.offload_worker.register_handler(GPULoadStoreSpec, CPULoadStoreSpec, handler)
        self._job_ids = itertools.count()
        self._job_to_req: dict[int, str] = {}

    def _submit(self, req_id: str, src, dst) -> None:
        job_id = next(self._job_ids)
        self._job_to_req[job_id] = req_id
        self.offload_worker.transfer_async(job_id, (src, dst))

    def execute_model_with_offload(self, input_ids: torch.Tensor,
                                   positions: torch.Tensor, attn_metadata,
                                   meta: OffloadStepMetadata):
        hidden_states = self.model(input_ids, positions, self.kv_caches, attn_metadata)

        # Offload the blocks completed by this step.
        for req_id, (gpu_ids, cpu_ids) in meta.stores.items():
            self._submit(req_id, GPULoadStoreSpec(np.asarray(gpu_ids)),
                         CPULoadStoreSpec(np.asarray(cpu_ids)))
        # Prefetch for requests admitted by the scheduler for a later step. The
        # GPU blocks come back from the free queue; the requests are only
        # scheduled once their job is reported finished.
        for req_id, (gpu_ids, cpu_ids) in meta.loads.items():
            self._submit(req_id, CPULoadStoreSpec(np.asarray(cpu_ids)),
                         GPULoadStoreSpec(np.asarray(gpu_ids)))

        finished = {self._job_to_req.pop(job_id)
                    for job_id, ok in self.offload_worker.get_finished() if ok}
        return hidden_states, finished
