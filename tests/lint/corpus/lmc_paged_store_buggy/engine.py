"""Cache engine front-end: chunking, allocation and the local CPU backend."""

import hashlib
from collections import OrderedDict
from dataclasses import dataclass
from typing import List, Optional

import torch

from .config import CHUNK_SIZE, KV_DTYPE, MAX_LOCAL_CPU_CHUNKS


@dataclass
class MemoryObj:
    key: str
    tensor: torch.Tensor


class PinnedMemoryAllocator:
    def __init__(self, num_layers: int, hidden: int):
        self.num_layers = num_layers
        self.hidden = hidden

    def allocate(self, key: str, num_tokens: int) -> MemoryObj:
        buf = torch.empty((self.num_layers, 2, num_tokens, self.hidden),
                          dtype=KV_DTYPE, pin_memory=True)
        return MemoryObj(key, buf)


class LocalCPUBackend:
    def __init__(self, capacity: int = MAX_LOCAL_CPU_CHUNKS):
        self.capacity = capacity
        self._hot: "OrderedDict[str, MemoryObj]" = OrderedDict()

    def contains(self, key: str) -> bool:
        return key in self._hot

    def put(self, key: str, obj: MemoryObj) -> None:
        self._hot[key] = obj
        self._hot.move_to_end(key)
        while len(self._hot) > self.capacity:
            self._hot.popitem(last=False)

    def get(self, key: str) -> Optional[MemoryObj]:
        return self._hot.get(key)


class LMCacheEngine:
    def __init__(self, connector, backend: LocalCPUBackend,
                 allocator: PinnedMemoryAllocator):
        self.connector = connector
        self.backend = backend
        self.allocator = allocator

    @staticmethod
    def _chunk_key(prefix: List[int]) -> str:
        return hashlib.sha256(repr(prefix).encode()).hexdigest()

    def store(self, tokens: List[int], slot_mapping: torch.Tensor) -> int:
        """Offload every not-yet-cached chunk of `tokens`; returns #stored."""
        stored = 0
        for start in range(0, len(tokens), CHUNK_SIZE):
            end = min(start + CHUNK_SIZE, len(tokens))
            key = self._chunk_key(tokens[:end])
            if self.backend.contains(key):
                continue
            obj = self.allocator.allocate(key, end - start)
            self.connector.from_gpu(obj, start, end, slot_mapping)
            self.backend.put(key, obj)
            stored += 1
        return stored
