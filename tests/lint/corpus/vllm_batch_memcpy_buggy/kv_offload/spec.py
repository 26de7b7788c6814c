# SPDX-License-Identifier: Apache-2.0
from dataclasses import dataclass

import torch

from kv_offload.worker import BatchMemcpyOffloadingHandler
from vllm.logger import init_logger

logger = init_logger(__name__)


@dataclass
class OffloadingConfig:
    num_cpu_blocks: int
    block_size_factor: int = 1
    prefer_overlap: bool = True


class CPUOffloadingSpec:
    def __init__(self, config: OffloadingConfig):
        self.config = config
        self._handlers = None

    def get_handlers(self, kv_caches: dict[str, torch.Tensor]):
        if self._handlers is not None:
            return self._handlers
        gpu_tensors, cpu_tensors = [], []
        for name, kv in kv_caches.items():
            page_bytes = kv[0].numel() * kv.element_size()
            gpu_tensors.append(kv.view(torch.int8).view(-1, page_bytes))
            cpu_tensors.append(torch.zeros((self.config.num_cpu_blocks, page_bytes),
                                           dtype=torch.int8, pin_memory=True))
        logger.info("Allocated %d pinned CPU KV tensors", len(cpu_tensors))
        store = BatchMemcpyOffloadingHandler(gpu_tensors, cpu_tensors, gpu_to_cpu=True,
                                             prefer_overlap=self.config.prefer_overlap)
        load = BatchMemcpyOffloadingHandler(gpu_tensors, cpu_tensors, gpu_to_cpu=False,
                                            prefer_overlap=self.config.prefer_overlap)
        self._handlers = (store, load)
        return self._handlers
