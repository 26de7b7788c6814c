# SPDX-License-Identifier: Apache-2.0
import hashlib
import logging
from typing import Dict, Generator, List, Tuple

import torch

from .config import LMCacheEngineConfig, LMCacheEngineMetadata
from .gpu_connector import VLLMPagedMemLayerwiseGPUConnector
from .kv_ops import chunk_shape
from .storage_manager import CacheEngineKey, StorageManager

logger = logging.getLogger(__name__)


class LMCacheLayerwiseEngine:
    def __init__(self, config: LMCacheEngineConfig, metadata: LMCacheEngineMetadata,
                 gpu_connector: VLLMPagedMemLayerwiseGPUConnector,
                 storage_manager: StorageManager):
        self.config = config
        self.metadata = metadata
        self.num_layers = metadata.num_layers
        self.gpu_connector = gpu_connector
        self.storage_manager = storage_manager

    def _make_chunks(self, tokens: torch.Tensor) -> Tuple[List[str], List[int], List[int]]:
        hashes, starts, ends = [], [], []
        prefix = hashlib.sha256()
        chunk_size = self.config.chunk_size
        for start in range(0, len(tokens), chunk_size):
            end = min(start + chunk_size, len(tokens))
            if end - start < chunk_size and not self.config.save_unfull_chunk:
                break
            prefix.update(tokens[start:end].numpy().tobytes())
            hashes.append(prefix.hexdigest())
            starts.append(start)
            ends.append(end)
        return hashes, starts, ends

    def store_layer(
        self,
        tokens: torch.Tensor,
        kvcaches: List[torch.Tensor],
        block_ids: List[int],
    ) -> Generator[None, None, None]:
        hashes, starts, ends = self._make_chunks(tokens)
        if not hashes:
            for _ in range(self.num_layers):
                yield
            return

        _, _, _, num_heads, head_size = self.metadata.kv_shape
        dtype = self.metadata.kv_dtype
        memory_objs = [
            [self.storage_manager.allocate(chunk_shape(e - s, num_heads, head_size), dtype)
             for s, e in zip(starts, ends)]
            for _ in range(self.num_layers)
        ]
        mem_obj_generator = self.gpu_connector.batched_from_gpu(
            memory_objs, starts, ends, kvcaches=kvcaches, block_ids=block_ids
        )
        for _ in range(self.num_layers):
            next(mem_obj_generator)
            yield
        next(mem_obj_generator)

        for layer_id in range(self.num_layers):
            meta = self.metadata
            keys = [CacheEngineKey(meta.model_name, meta.worker_id, h, layer_id) for h in hashes]
            self.storage_manager.batched_put(keys, memory_objs[layer_id])
        logger.debug("Stored %d tokens layerwise", ends[-1])


class LMCacheConnectorV1Impl:
    """Worker-side glue called from vLLM's attention layers."""

    def __init__(self, engine: LMCacheLayerwiseEngine, kv_caches: Dict[str, torch.Tensor]):
        self.engine = engine
        self.kv_caches = kv_caches
        self.layer_names = list(kv_caches.keys())
        self._storers: List[Generator[None, None, None]] = []

    def start_save(self, requests: List[Tuple[torch.Tensor, List[int]]]) -> None:
        kvcaches = [self.kv_caches[name] for name in self.layer_names]
        self._storers = [
            self.engine.store_layer(tokens, kvcaches, block_ids)
            for tokens, block_ids in requests
        ]

    def save_kv_layer(self, layer_name: str, kv_layer: torch.Tensor) -> None:
        for storer in self._storers:
            next(storer)

    def wait_for_save(self) -> None:
        for storer in self._storers:
            next(storer, None)
        self._storers = []
