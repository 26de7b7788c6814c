"""Hot cache of pinned memory objects, keyed by chunk hash."""

import threading
from dataclasses import dataclass
from typing import Dict, Optional

import torch


@dataclass
class MemoryObj:
    tensor: torch.Tensor  # [2, num_layers, chunk_size, hidden], pinned
    num_tokens: int


class LocalCPUBackend:
    def __init__(self, num_layers: int, chunk_size: int, hidden: int, dtype):
        self.shape = (2, num_layers, chunk_size, hidden)
        self.dtype = dtype
        self.hot_cache: Dict[str, MemoryObj] = {}
        self.lock = threading.Lock()

    def allocate(self, num_tokens: int) -> MemoryObj:
        return MemoryObj(torch.empty(self.shape, dtype=self.dtype, pin_memory=True), num_tokens)

    def put(self, key: str, obj: MemoryObj) -> None:
        with self.lock:
            self.hot_cache[key] = obj

    def get(self, key: str) -> Optional[MemoryObj]:
        with self.lock:
            return self.hot_cache.get(key)
