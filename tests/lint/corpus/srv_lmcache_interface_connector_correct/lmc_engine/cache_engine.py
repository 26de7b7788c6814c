# SPDX-License-Identifier: Apache-2.0
"""Cache engine: chunked store/retrieve of KV caches with a local disk backend."""

from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence
import hashlib
import logging
import os

import torch

from .gpu_connector import GPUConnectorInterface
from .memory_management import MemoryObj, PinnedMemoryAllocator

logger = logging.getLogger(__name__)


@dataclass
class LMCacheEngineConfig:
    chunk_size: int = 256
    local_disk_path: str = "/tmp/lmcache"
    max_local_cpu_size_gb: float = 4.0


class LocalDiskBackend:
    def __init__(self, path: str, allocator: PinnedMemoryAllocator):
        self.path = path
        self.allocator = allocator
        self.index: Dict[str, tuple] = {}
        os.makedirs(path, exist_ok=True)

    def _file(self, key: str) -> str:
        return os.path.join(self.path, key + ".kv")

    def put(self, key: str, obj: MemoryObj) -> None:
        payload = obj.tensor.view(torch.uint8).numpy().tobytes()
        with open(self._file(key), "wb") as f:
            f.write(payload)
        self.index[key] = (obj.tensor.shape, obj.tensor.dtype)

    def get(self, key: str) -> Optional[MemoryObj]:
        if key not in self.index:
            return None
        shape, dtype = self.index[key]
        obj = self.allocator.allocate(shape, dtype)
        if obj is None:
            return None
        with open(self._file(key), "rb") as f:
            f.readinto(obj.raw.numpy())
        return obj


class LMCacheEngine:
    def __init__(self, config: LMCacheEngineConfig, gpu_connector: GPUConnectorInterface, block_size: int):
        self.config = config
        self.gpu_connector = gpu_connector
        self.block_size = block_size
        self.allocator = PinnedMemoryAllocator(int(config.max_local_cpu_size_gb * 2**30))
        self.backend = LocalDiskBackend(config.local_disk_path, self.allocator)
        self.stats = {"stored_chunks": 0, "retrieved_chunks": 0}

    def _chunk_keys(self, tokens: Sequence[int]) -> List[str]:
        keys, h = [], hashlib.sha256()
        for start in range(0, len(tokens), self.config.chunk_size):
            h.update(str(list(tokens[start : start + self.config.chunk_size])).encode())
            keys.append(h.hexdigest())
        return keys

    def store(self, tokens: Sequence[int], block_ids: Sequence[int], kvcaches: List[torch.Tensor],
              on_stored: Optional[Callable[[str], None]] = None) -> int:
        """Called from the model runner after the forward that wrote ``block_ids``."""
        blocks_per_chunk = self.config.chunk_size // self.block_size
        stored = 0
        for idx, key in enumerate(self._chunk_keys(tokens)):
            chunk_blocks = block_ids[idx * blocks_per_chunk : (idx + 1) * blocks_per_chunk]
            obj = self.allocator.allocate(self.gpu_connector.get_shape(len(chunk_blocks)), kvcaches[0].dtype)
            if obj is None:
                break
            self.gpu_connector.from_gpu(obj, chunk_blocks, kvcaches=kvcaches)
            self.backend.put(key, obj)
            obj.ref_count_down()
            stored += 1
            if on_stored is not None:
                on_stored(key)
        self.stats["stored_chunks"] += stored
        return stored

    def retrieve(self, tokens: Sequence[int], block_ids: Sequence[int], kvcaches: List[torch.Tensor]) -> int:
        blocks_per_chunk = self.config.chunk_size // self.block_size
        hit_tokens = 0
        for idx, key in enumerate(self._chunk_keys(tokens)):
            obj = self.backend.get(key)
            if obj is None:
                break
            chunk_blocks = block_ids[idx * blocks_per_chunk : (idx + 1) * blocks_per_chunk]
            self.gpu_connector.to_gpu(obj, chunk_blocks, kvcaches=kvcaches)
            obj.ref_count_down()
            hit_tokens += len(chunk_blocks) * self.block_size
        self.stats["retrieved_chunks"] += hit_tokens // self.config.chunk_size
        return hit_tokens

