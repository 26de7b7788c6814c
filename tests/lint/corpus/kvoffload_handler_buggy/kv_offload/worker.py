# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the vLLM project
import logging

import torch

from .handler import SingleDirectionOffloadingHandler
from .mediums import TransferResult, TransferSpec

logger = logging.getLogger(__name__)


class CpuGpuOffloadingHandlers:
    def __init__(self, gpu_kv_caches: dict[str, torch.Tensor], num_cpu_blocks: int):
        gpu_tensors: list[torch.Tensor] = []
        cpu_tensors: list[torch.Tensor] = []
        logger.info("Allocating %d pinned CPU KV tensors", len(gpu_kv_caches))
        for name, kv in gpu_kv_caches.items():
            page_bytes = kv.stride(0) * kv.element_size()
            gpu_tensors.append(kv.view(torch.int8).view(-1, page_bytes))
            cpu_tensors.append(
                torch.zeros((num_cpu_blocks, page_bytes), dtype=torch.int8, pin_memory=True)
            )
        self.gpu_to_cpu = SingleDirectionOffloadingHandler(gpu_tensors, cpu_tensors, True)
        self.cpu_to_gpu = SingleDirectionOffloadingHandler(gpu_tensors, cpu_tensors, False)


class OffloadingWorker:
    """Routes each TransferSpec to the handler registered for its mediums."""

    def __init__(self):
        self.handlers: dict[tuple[str, str], SingleDirectionOffloadingHandler] = {}
        self.job_to_handler: dict[int, SingleDirectionOffloadingHandler] = {}

    def register_handlers(self, handlers: CpuGpuOffloadingHandlers) -> None:
        self.handlers[("GPU", "CPU")] = handlers.gpu_to_cpu
        self.handlers[("CPU", "GPU")] = handlers.cpu_to_gpu

    def transfer_async(self, job_id: int, spec: TransferSpec) -> bool:
        src, dst = spec
        handler = self.handlers[(src.medium(), dst.medium())]
        try:
            ok = handler.transfer_async(job_id, spec)
        except Exception:
            logger.exception("Offloading transfer %d failed to start", job_id)
            return False
        if ok:
            self.job_to_handler[job_id] = handler
        return ok

    def get_finished(self) -> list[TransferResult]:
        finished: list[TransferResult] = []
        for handler in self.handlers.values():
            for result in handler.get_finished():
                self.job_to_handler.pop(result.job_id, None)
                finished.append(result)
        return finished

    def wait(self, job_ids: set[int]) -> None:
        by_handler: dict[int, set[int]] = {}
        for job_id in job_ids:
            handler = self.job_to_handler.get(job_id)
            if handler is not None:
                by_handler.setdefault(id(handler), set()).add(job_id)
        for handler in set(self.job_to_handler.values()):
            handler.wait(by_handler.get(id(handler), set()))
