import hashlib
import logging
from typing import Iterator, List, Optional, Tuple

import torch

from lmc.config import CacheEngineKey, LMCacheEngineConfig, LMCacheEngineMetadata
from lmc.gpu_connector import GPUConnectorInterface
from lmc.memory_management import PinMemoryAllocator
from lmc.storage_backend import LocalDiskBackend

logger = logging.getLogger(__name__)


class LMCacheEngine:
    def __init__(self, config: LMCacheEngineConfig, metadata: LMCacheEngineMetadata,
                 gpu_connector: GPUConnectorInterface, memory_allocator: PinMemoryAllocator):
        self.config = config
        self.metadata = metadata
        self.gpu_connector = gpu_connector
        self.memory_allocator = memory_allocator
        self.storage_backend = LocalDiskBackend(config)

    def _make_key(self, chunk_hash: str) -> CacheEngineKey:
        m = self.metadata
        return CacheEngineKey("vllm", m.model_name, m.world_size, m.worker_id, chunk_hash)

    def _chunks(self, token_ids: List[int]) -> Iterator[Tuple[int, int, CacheEngineKey]]:
        prefix = hashlib.sha256()
        for start in range(0, len(token_ids), self.config.chunk_size):
            end = min(start + self.config.chunk_size, len(token_ids))
            if end - start < self.config.chunk_size and not self.config.save_unfull_chunk:
                return
            prefix.update(str(token_ids[start:end]).encode())
            yield start, end, self._make_key(prefix.hexdigest())

    @torch.inference_mode()
    def store(self, token_ids: List[int], skip_prefix: int = 0, **kwargs) -> int:
        """kwargs: kvcaches (per-layer paged KV tensors), slot_mapping (GPU int64)."""
        num_layers, _, _, hidden = self.metadata.kv_shape
        stored = 0
        for start, end, key in self._chunks(token_ids):
            if end <= skip_prefix or self.storage_backend.contains(key):
                continue
            shape = torch.Size((num_layers, 2, end - start, hidden))
            memory_obj = self.memory_allocator.allocate(shape, self.metadata.kv_dtype)
            if memory_obj is None:
                logger.warning("pinned pool exhausted, stored %d tokens", stored)
                break
            self.gpu_connector.from_gpu(memory_obj, start, end, **kwargs)
            self.storage_backend.submit_put_task(key, memory_obj)
            memory_obj.ref_count_down()
            stored += end - start
        return stored

    def close(self) -> None:
        self.storage_backend.close()
