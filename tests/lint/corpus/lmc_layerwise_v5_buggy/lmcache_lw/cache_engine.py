# SPDX-License-Identifier: Apache-2.0
# Standard
import logging
from typing import Generator, List, Optional
import hashlib

# Third Party
import torch

# First Party
from lmcache_lw.config import LMCacheEngineConfig
from lmcache_lw.gpu_connector import VLLMPagedMemLayerwiseGPUConnector
from lmcache_lw.memory_management import PinMemoryAllocator
from lmcache_lw.storage_backend import StorageManager

logger = logging.getLogger(__name__)


class LMCacheEngine:
    def __init__(
        self,
        config: LMCacheEngineConfig,
        gpu_connector: VLLMPagedMemLayerwiseGPUConnector,
    ):
        self.config = config
        self.gpu_connector = gpu_connector
        self.num_layers = gpu_connector.num_layers
        self.allocator = PinMemoryAllocator(int(config.max_local_cpu_size * 1024**3))
        self.storage_manager = StorageManager(config)

    def _chunk_keys(self, token_list: List[int]) -> List[tuple]:
        chunks = []
        prefix = hashlib.sha256()
        for start in range(0, len(token_list), self.config.chunk_size):
            end = min(start + self.config.chunk_size, len(token_list))
            if end - start < self.config.chunk_size and not self.config.save_unfull_chunk:
                break
            prefix.update(repr(token_list[start:end]).encode())
            chunks.append((start, end, prefix.hexdigest()[:32]))
        return chunks

    def store_layer(
        self, tokens: List[int], mask: Optional[torch.Tensor] = None, **kwargs
    ) -> Generator[None, None, None]:
        """Layer-wise store; the connector drives one ``next()`` per layer."""
        chunks = [c for c in self._chunk_keys(tokens) if not self.storage_manager.contains(c[2])]
        if not chunks:
            for _ in range(self.num_layers):
                yield
            return

        starts = [c[0] for c in chunks]
        ends = [c[1] for c in chunks]
        shape_of = self.gpu_connector.get_shape
        memory_objs = [
            [self.allocator.allocate(shape_of(e - s), self.gpu_connector.dtype) for s, e in zip(starts, ends)]
            for _ in range(self.num_layers)
        ]
        mem_gen = self.gpu_connector.batched_from_gpu(memory_objs, starts, ends, sync=True, **kwargs)

        for layer_id in range(self.num_layers):
            next(mem_gen)
            yield
        next(mem_gen)

        for layer_id in range(self.num_layers):
            keys = [f"{c[2]}@{layer_id}" for c in chunks]
            self.storage_manager.batched_put(keys, memory_objs[layer_id])
        logger.debug("Stored %d chunks across %d layers", len(chunks), self.num_layers)
