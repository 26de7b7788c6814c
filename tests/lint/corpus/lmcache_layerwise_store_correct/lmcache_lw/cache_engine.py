import hashlib
import logging
from collections.abc import Generator
from dataclasses import dataclass

import torch

from .gpu_connector import VLLMPagedMemLayerwiseGPUConnector
from .local_disk_backend import LocalDiskBackend
from .memory_management import PinnedMemoryAllocator

logger = logging.getLogger(__name__)


@dataclass
class LMCacheEngineConfig:
    model_name: str
    num_layers: int
    num_kv_heads: int
    head_size: int
    block_size: int
    kv_dtype: torch.dtype
    local_cpu_size: int
    local_disk_path: str


class LMCacheEngine:
    def __init__(self, config: LMCacheEngineConfig):
        self.config = config
        self.allocator = PinnedMemoryAllocator(config.local_cpu_size)
        self.gpu_connector = VLLMPagedMemLayerwiseGPUConnector(config.num_layers, config.block_size)
        self.storage_backend = LocalDiskBackend(config.local_disk_path)

    def _layer_keys(self, tokens: list[int]) -> list[str]:
        prefix = hashlib.sha256(str(tokens).encode()).hexdigest()
        return [f"{self.config.model_name}@{prefix}@{layer}" for layer in range(self.config.num_layers)]

    def store_layer(
        self, tokens: list[int], block_ids: list[int], kvcaches: list[torch.Tensor]
    ) -> Generator[None, None, None]:
        """Drive with next() once before the forward pass and once after each
        attention layer has written its KV."""
        cfg = self.config
        shape = (2, len(tokens), cfg.num_kv_heads * cfg.head_size)
        memory_objs = []
        for _ in range(cfg.num_layers):
            obj = self.allocator.allocate(shape, cfg.kv_dtype)
            if obj is None:
                logger.warning("Local CPU buffer full, skipping store of %d tokens", len(tokens))
                for allocated in memory_objs:
                    allocated.ref_count_down()
                return
            memory_objs.append(obj)

        keys = self._layer_keys(tokens)
        mem_gen = self.gpu_connector.batched_from_gpu(memory_objs, block_ids, len(tokens), kvcaches)
        next(mem_gen)
        for _ in range(cfg.num_layers):
            yield
            next(mem_gen)
        # runs the connector's epilogue
        next(mem_gen, None)

        self.storage_backend.batched_submit_put_task(keys, memory_objs)
        for obj in memory_objs:
            obj.ref_count_down()
