"""SGLang's token-indexed device KV pool and LMCache's pinned chunk allocator."""

import threading
from dataclasses import dataclass
from typing import List, Optional

import torch


class MHATokenToKVPool:
    def __init__(self, size: int, head_num: int, head_dim: int, layer_num: int, dtype, device: str):
        self.size = size
        self.layer_num = layer_num
        self.k_buffer: List[torch.Tensor] = [
            torch.zeros((size + 1, head_num, head_dim), dtype=dtype, device=device) for _ in range(layer_num)
        ]
        self.v_buffer: List[torch.Tensor] = [
            torch.zeros((size + 1, head_num, head_dim), dtype=dtype, device=device) for _ in range(layer_num)
        ]


@dataclass
class MemoryObj:
    tensor: torch.Tensor  # [2, layer_num, chunk_size, head_num, head_dim], pinned
    key: str
    num_tokens: int


class PinnedChunkAllocator:
    def __init__(self, num_chunks: int, layer_num: int, chunk_size: int, head_num: int, head_dim: int, dtype):
        self.buffer = torch.empty(
            (num_chunks, 2, layer_num, chunk_size, head_num, head_dim), dtype=dtype, pin_memory=True
        )
        self._free = list(range(num_chunks))
        self._lock = threading.Lock()

    def allocate(self, key: str, num_tokens: int) -> Optional[MemoryObj]:
        with self._lock:
            if not self._free:
                return None
            slot = self._free.pop()
        return MemoryObj(self.buffer[slot], key, num_tokens)
