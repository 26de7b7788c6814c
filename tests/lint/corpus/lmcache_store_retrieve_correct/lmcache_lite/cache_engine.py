from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from typing import Dict, Iterator, List, Optional, Tuple

import torch

from .gpu_connector import VLLMPagedMemGPUConnectorV2
from .memory_management import MemoryObj, PinnedMemoryAllocator

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class CacheEngineKey:
    model_name: str
    chunk_hash: str


class LMCacheEngine:
    def __init__(self, model_name: str, gpu_connector: VLLMPagedMemGPUConnectorV2,
                 allocator: PinnedMemoryAllocator) -> None:
        self.model_name = model_name
        self.gpu_connector = gpu_connector
        self.allocator = allocator
        self.chunk_size = gpu_connector.chunk_size
        self.hot_cache: Dict[CacheEngineKey, MemoryObj] = {}

    def _chunks(self, tokens: torch.Tensor) -> Iterator[Tuple[int, int, CacheEngineKey]]:
        prefix = hashlib.sha256()
        token_list = tokens.tolist()
        for start in range(0, len(token_list), self.chunk_size):
            end = min(start + self.chunk_size, len(token_list))
            prefix.update(repr(token_list[start:end]).encode())
            yield start, end, CacheEngineKey(self.model_name, prefix.hexdigest())

    def _shape(self, num_tokens: int) -> torch.Size:
        c = self.gpu_connector
        return torch.Size((2, c.num_layers, num_tokens, c.hidden_dim_size))

    @torch.inference_mode()
    def store(self, tokens: torch.Tensor, **kwargs) -> int:
        stored = 0
        for start, end, key in self._chunks(tokens):
            if key in self.hot_cache:
                continue
            memory_obj = self.allocator.allocate(self._shape(end - start), self.gpu_connector.store_buffer.dtype)
            if memory_obj is None:
                logger.warning("LMCache pinned pool exhausted, skipping the rest of the request")
                break
            self.gpu_connector.from_gpu(memory_obj, start, end, **kwargs)
            self.hot_cache[key] = memory_obj
            stored += end - start
        return stored

    @torch.inference_mode()
    def retrieve(self, tokens: torch.Tensor, **kwargs) -> torch.Tensor:
        ret_mask = torch.zeros_like(tokens, dtype=torch.bool, device="cpu")
        for start, end, key in self._chunks(tokens):
            memory_obj: Optional[MemoryObj] = self.hot_cache.get(key)
            if memory_obj is None:
                break
            self.gpu_connector.to_gpu(memory_obj, start, end, **kwargs)
            ret_mask[start:end] = True
        return ret_mask

    def close(self) -> None:
        torch.cuda.synchronize()
        for obj in self.hot_cache.values():
            self.allocator.free(obj)
        self.hot_cache.clear()
