import logging
from typing import Dict, List, Tuple

import torch

from lmc.config import LMCacheEngineConfig
from lmc.gpu_connector import VLLMPagedMemGPUConnector
from lmc.memory_management import MemoryObj, PinMemoryAllocator

logger = logging.getLogger(__name__)


class LMCacheEngine:
    def __init__(self, config: LMCacheEngineConfig, gpu_connector: VLLMPagedMemGPUConnector):
        self.config = config
        self.gpu_connector = gpu_connector
        self.allocator = PinMemoryAllocator(config.max_local_cpu_size)
        self.hot_cache: Dict[str, MemoryObj] = {}

    def _chunk_ranges(self, num_tokens: int) -> List[Tuple[int, int]]:
        size = self.config.chunk_size
        ranges = [(s, min(s + size, num_tokens)) for s in range(0, num_tokens, size)]
        if not self.config.save_unfull_chunk and ranges and ranges[-1][1] - ranges[-1][0] < size:
            ranges.pop()
        return ranges

    @torch.inference_mode()
    def store(self, tokens: torch.Tensor, slot_mapping: torch.Tensor, prefix_key: str) -> int:
        self.gpu_connector.prepare_store()
        stored = 0
        for start, end in self._chunk_ranges(len(tokens)):
            key = f"{prefix_key}@{start}"
            if key in self.hot_cache:
                continue
            shape = self.gpu_connector.get_shape(end - start)
            memory_obj = self.allocator.allocate(shape, torch.bfloat16)
            if memory_obj is None:
                break
            self.gpu_connector.from_gpu(memory_obj, start, end, slot_mapping)
            self.hot_cache[key] = memory_obj
            stored += end - start
        logger.debug("stored %d tokens for %s", stored, prefix_key)
        return stored
