from __future__ import annotations

from typing import Dict, Generator, List, Tuple

import torch

from lmcache.logging import init_logger

from .config import LMCacheEngineConfig, LMCacheEngineMetadata
from .gpu_connector import VLLMPagedMemLayerwiseGPUConnector
from .memory_management import MemoryObj, PinnedMemoryAllocator

logger = init_logger(__name__)

CacheKey = Tuple[int, int]


class LMCacheEngine:
    def __init__(
        self,
        config: LMCacheEngineConfig,
        metadata: LMCacheEngineMetadata,
        gpu_connector: VLLMPagedMemLayerwiseGPUConnector,
    ):
        self.config = config
        self.metadata = metadata
        self.gpu_connector = gpu_connector
        block_shape = (2, metadata.block_size, metadata.num_kv_heads, metadata.head_size)
        self.allocator = PinnedMemoryAllocator(block_shape, metadata.kv_dtype, 1 << 16)
        self.hot_cache: Dict[CacheKey, MemoryObj] = {}

    def _chunk(self, token_ids: List[int], block_ids: List[int]):
        bs = self.metadata.block_size
        for start in range(0, len(token_ids), self.config.chunk_size):
            end = min(start + self.config.chunk_size, len(token_ids))
            yield hash(tuple(token_ids[:end])), block_ids[start // bs : (end + bs - 1) // bs]

    def store_layer(
        self, token_ids: List[int], block_ids: List[int], kvcaches: List[torch.Tensor]
    ) -> Generator[None, None, None]:
        chunks = list(self._chunk(token_ids, block_ids))
        memory_objs: List[List[MemoryObj]] = []
        for layer_id in range(self.metadata.num_layers):
            layer_objs = []
            for chunk_hash, chunk_blocks in chunks:
                obj = self.allocator.allocate(len(chunk_blocks))
                assert obj is not None, "local cpu buffer exhausted"
                obj.chunk_hash, obj.layer_id = chunk_hash, layer_id
                layer_objs.append(obj)
            memory_objs.append(layer_objs)

        mem_gen = self.gpu_connector.batched_from_gpu(
            memory_objs, [c[1] for c in chunks], kvcaches
        )
        for _ in range(self.metadata.num_layers):
            next(mem_gen)
            yield
        next(mem_gen)
        for layer_objs in memory_objs:
            for obj in layer_objs:
                self.hot_cache[(obj.chunk_hash, obj.layer_id)] = obj
        logger.info("stored %d tokens layer by layer", len(token_ids))
        yield
