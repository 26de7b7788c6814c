"""Cache engine in the shape of LMCache's LMCacheEngine.store_layer: allocate one pinned
MemoryObj per (layer, chunk), drive the connector's generator one layer per step, and hand
each finished layer's objects to the storage manager."""

from typing import Dict, List, Tuple

import torch

from lmc.gpu_connector import VLLMPagedMemLayerwiseGPUConnector
from lmc.memory_management import MemoryObj, PinMemoryAllocator


class LocalCPUStorage:
    def __init__(self):
        self.hot_cache: Dict[Tuple[str, int], MemoryObj] = {}

    def batched_put(self, keys: List[Tuple[str, int]], objs: List[MemoryObj]) -> None:
        for key, obj in zip(keys, objs):
            self.hot_cache[key] = obj


class LMCacheEngine:
    def __init__(self, connector: VLLMPagedMemLayerwiseGPUConnector, allocator: PinMemoryAllocator,
                 chunk_blocks: int, num_heads: int, head_size: int, dtype=torch.bfloat16):
        self.gpu_connector = connector
        self.allocator = allocator
        self.chunk_blocks = chunk_blocks
        self.num_layers = connector.num_layers
        self.obj_shape = (2, chunk_blocks * connector.block_size, num_heads, head_size)
        self.dtype = dtype
        self.storage_manager = LocalCPUStorage()

    def store_layer(self, chunk_hashes: List[str], block_ids: List[int]):
        chunks = [block_ids[i : i + self.chunk_blocks] for i in range(0, len(block_ids), self.chunk_blocks)]
        memory_objs = [
            [self.allocator.allocate(self.obj_shape, self.dtype) for _ in chunks]
            for _ in range(self.num_layers)
        ]
        mem_obj_generator = self.gpu_connector.batched_from_gpu(memory_objs, chunks)
        next(mem_obj_generator)
        for layer_id in range(self.num_layers):
            yield
            next(mem_obj_generator)
            keys = [(h, layer_id) for h in chunk_hashes]
            self.storage_manager.batched_put(keys, memory_objs[layer_id])
