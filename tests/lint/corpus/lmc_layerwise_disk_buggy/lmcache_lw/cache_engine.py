from __future__ import annotations

import hashlib
import logging
from typing import Generator, List, Tuple

import torch

from lmcache_lw.config import LMCacheEngineConfig
from lmcache_lw.gpu_connector import VLLMPagedMemLayerwiseGPUConnector
from lmcache_lw.local_disk import LocalDiskBackend
from lmcache_lw.memory import PinnedMemoryAllocator

logger = logging.getLogger(__name__)


class LMCacheEngine:
    def __init__(
        self,
        config: LMCacheEngineConfig,
        gpu_connector: VLLMPagedMemLayerwiseGPUConnector,
        dtype: torch.dtype,
    ):
        self.config = config
        self.gpu_connector = gpu_connector
        self.num_layers = gpu_connector.num_layers
        self.allocator = PinnedMemoryAllocator(dtype)
        self.storage = LocalDiskBackend(config)

    def _chunk(self, tokens: torch.Tensor) -> List[Tuple[str, int, int]]:
        out = []
        prefix = hashlib.sha256()
        for start in range(0, len(tokens), self.config.chunk_size):
            end = min(start + self.config.chunk_size, len(tokens))
            prefix.update(tokens[start:end].numpy().tobytes())
            out.append((prefix.hexdigest(), start, end))
        return out

    def store_layer(
        self, tokens: torch.Tensor, slot_mapping: torch.Tensor
    ) -> Generator[None, None, None]:
        chunks = self._chunk(tokens)
        keys = [k for k, _, _ in chunks]
        starts = [s for _, s, _ in chunks]
        ends = [e for _, _, e in chunks]
        hidden = self.gpu_connector.hidden_dim
        memory_objs = [
            [self.allocator.allocate(torch.Size((2, e - s, hidden))) for s, e in zip(starts, ends)]
            for _ in range(self.num_layers)
        ]
        mem_obj_generator = self.gpu_connector.batched_from_gpu(
            memory_objs, starts, ends, slot_mapping=slot_mapping, sync=self.config.layerwise_sync
        )
        for layer_id in range(self.num_layers):
            next(mem_obj_generator)
            yield
        next(mem_obj_generator)

        for chunk_idx, key in enumerate(keys):
            layer_objs = [memory_objs[layer_id][chunk_idx] for layer_id in range(self.num_layers)]
            self.storage.submit_put_task(key, layer_objs)
        logger.debug("Submitted %d chunks for storage", len(keys))
