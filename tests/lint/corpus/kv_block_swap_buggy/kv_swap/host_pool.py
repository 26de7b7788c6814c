# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
import threading
from typing import List

import torch


class HostBlockPool:
    """Pinned host arena carved into fixed-size KV blocks."""

    def __init__(self, num_blocks: int, block_bytes: int):
        self.block_bytes = block_bytes
        self.arena = torch.empty((num_blocks, block_bytes), dtype=torch.uint8, pin_memory=True)
        self._free: List[int] = list(range(num_blocks))
        self._lock = threading.Lock()

    def allocate(self, n: int) -> List[int]:
        with self._lock:
            if n > len(self._free):
                raise RuntimeError(f"host KV pool exhausted ({n} > {len(self._free)})")
            out, self._free = self._free[:n], self._free[n:]
            return out

    def free(self, block_ids: List[int]) -> None:
        with self._lock:
            self._free.extend(block_ids)

    def addr(self, block_id: int) -> int:
        return self.arena.data_ptr() + block_id * self.block_bytes
