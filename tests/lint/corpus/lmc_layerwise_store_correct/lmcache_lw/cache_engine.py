import hashlib
import logging
from dataclasses import dataclass
from typing import Dict, Generator, List, Optional

import torch

from lmcache_lw.config import LMCacheEngineConfig, LMCacheEngineMetadata
from lmcache_lw.gpu_connector import VLLMPagedMemLayerwiseGPUConnector
from lmcache_lw.memory_management import MemoryObj, PinMemoryAllocator
from lmcache_lw.storage_backend import LocalDiskBackend

logger = logging.getLogger(__name__)


def chunk_hash(token_ids: List[int], prefix_hash: str) -> str:
    return hashlib.sha256((prefix_hash + ",".join(map(str, token_ids))).encode()).hexdigest()


class LMCacheEngine:
    def __init__(self, config: LMCacheEngineConfig, metadata: LMCacheEngineMetadata,
                 gpu_connector: VLLMPagedMemLayerwiseGPUConnector):
        self.config = config
        self.metadata = metadata
        self.num_layers = metadata.num_layers
        self.gpu_connector = gpu_connector
        self.allocator = PinMemoryAllocator(config.pinned_pool_bytes)
        self.storage_backend = LocalDiskBackend(
            config.local_disk_path, config.max_local_disk_workers, self.allocator
        )

    def store_layer(self, tokens: List[int], kvcaches: List[torch.Tensor],
                    block_ids: List[int], sync: bool) -> Generator[None, None, None]:
        starts, ends, keys = [], [], []
        prefix = ""
        for start in range(0, len(tokens), self.config.chunk_size):
            end = min(start + self.config.chunk_size, len(tokens))
            prefix = chunk_hash(tokens[start:end], prefix)
            starts.append(start)
            ends.append(end)
            keys.append(f"{self.metadata.model_name}@{prefix}")

        memory_objs: List[List[MemoryObj]] = [
            [
                self.allocator.allocate(self.gpu_connector.get_shape(e - s), self.metadata.kv_dtype)
                for s, e in zip(starts, ends)
            ]
            for _ in range(self.num_layers)
        ]
        mem_obj_generator = self.gpu_connector.batched_from_gpu(
            memory_objs, starts, ends, kvcaches=kvcaches, block_ids=block_ids, sync=sync
        )
        for layer_id in range(self.num_layers):
            next(mem_obj_generator)
            layer_keys = [f"{key}@L{layer_id}" for key in keys]
            self.storage_backend.batched_submit_put_task(layer_keys, memory_objs[layer_id])
            yield


@dataclass
class SaveRequest:
    req_id: str
    token_ids: List[int]
    block_ids: List[int]
    is_last_chunk: bool


class LMCacheLayerwiseSaver:
    """Worker-side hook called from vLLM's attention layers (save_kv_layer)."""

    def __init__(self, engine: LMCacheEngine, kv_caches: Dict[str, torch.Tensor]):
        self.engine = engine
        self.layer_names = list(kv_caches.keys())
        self.kv_caches = [kv_caches[name] for name in self.layer_names]
        self.pending: List[SaveRequest] = []
        self.storers: List[Generator[None, None, None]] = []

    def bind_requests(self, requests: List[SaveRequest]) -> None:
        self.pending = requests

    def save_kv_layer(self, layer_name: str, kv_layer: Optional[torch.Tensor] = None) -> None:
        if self.layer_names.index(layer_name) == 0:
            self.storers = [
                self.engine.store_layer(req.token_ids, self.kv_caches, req.block_ids,
                                        sync=req.is_last_chunk)
                for req in self.pending
            ]
        for storer in self.storers:
            next(storer)

    def wait_for_save(self) -> None:
        self.storers.clear()
        self.pending = []
