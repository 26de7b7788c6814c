"""Cache engine with a local CPU backend: store() snapshots a request's prefix into a pinned
memory object, retrieve() loads a cached prefix into the blocks vLLM allocated for it."""

from typing import Dict, List, Optional

import torch

from lmc.gpu_connector import VLLMPagedMemGPUConnectorV2
from lmc.memory_management import MemoryObj, PinMemoryAllocator


class LocalCPUBackend:
    def __init__(self):
        self.hot_cache: Dict[str, MemoryObj] = {}

    def contains(self, key: str) -> bool:
        return key in self.hot_cache

    def get(self, key: str) -> Optional[MemoryObj]:
        return self.hot_cache.get(key)

    def put(self, key: str, obj: MemoryObj) -> None:
        self.hot_cache[key] = obj


class LMCacheEngine:
    def __init__(self, connector: VLLMPagedMemGPUConnectorV2, heads: int, head_size: int,
                 dtype=torch.bfloat16, arena_bytes: int = 4 << 30):
        self.gpu_connector = connector
        self.allocator = PinMemoryAllocator(arena_bytes)
        self.backend = LocalCPUBackend()
        self.heads, self.head_size, self.dtype = heads, head_size, dtype

    def store(self, key: str, num_tokens: int, block_ids: List[int]) -> bool:
        shape = (self.gpu_connector.num_layers, 2, num_tokens, self.heads, self.head_size)
        obj = self.allocator.allocate(shape, self.dtype)
        if obj is None:
            return False
        self.gpu_connector.from_gpu(obj, 0, num_tokens, block_ids=block_ids)
        self.backend.put(key, obj)
        return True

    def retrieve(self, key: str, req_id: str, num_tokens: int, block_ids: List[int]) -> int:
        obj = self.backend.get(key)
        if obj is None:
            return 0
        self.gpu_connector.to_gpu(obj, 0, num_tokens, req_id=req_id, block_ids=block_ids)
        return num_tokens
