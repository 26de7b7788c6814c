"""LMCacheEngine.store: chunk the request, offload each chunk, persist it."""

import hashlib
from dataclasses import dataclass
from typing import List

import torch

from .gpu_connector import VLLMPagedMemGPUConnector
from .memory_management import PinMemoryAllocator
from .storage_backend import LocalDiskBackend


@dataclass
class LMCacheEngineConfig:
    chunk_size: int = 256
    max_local_cpu_bytes: int = 4 << 30
    local_disk: str = "/tmp/lmcache"
    kv_dtype: torch.dtype = torch.bfloat16


class LMCacheEngine:
    def __init__(self, config: LMCacheEngineConfig, connector: VLLMPagedMemGPUConnector):
        self.config = config
        self.gpu_connector = connector
        slab = connector.get_shape(config.chunk_size).numel() * 2
        self.allocator = PinMemoryAllocator(config.max_local_cpu_bytes, slab)
        self.backend = LocalDiskBackend(config.local_disk)

    def _chunk_keys(self, tokens: List[int]):
        prefix = hashlib.sha256()
        for start in range(0, len(tokens), self.config.chunk_size):
            end = min(start + self.config.chunk_size, len(tokens))
            prefix.update(str(tokens[start:end]).encode())
            yield start, end, prefix.hexdigest()

    @torch.inference_mode()
    def store(self, tokens: List[int], kvcaches: List[torch.Tensor], block_ids: List[int]) -> int:
        stored = 0
        for start, end, key in self._chunk_keys(tokens):
            if self.backend.contains(key):
                continue
            shape = self.gpu_connector.get_shape(end - start)
            memory_obj = self.allocator.allocate(shape, self.config.kv_dtype)
            if memory_obj is None:
                break
            self.gpu_connector.from_gpu(memory_obj, start, end, kvcaches=kvcaches, block_ids=block_ids)
            self.backend.submit_put_task(key, memory_obj)
            memory_obj.ref_count_down()
            stored += end - start
        return stored
