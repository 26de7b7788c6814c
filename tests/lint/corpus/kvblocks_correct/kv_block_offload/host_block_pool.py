# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from typing import List

import torch


class HostBlockPool:
    """Page-locked host storage for offloaded KV blocks."""

    def __init__(self, num_blocks: int, block_numel: int, dtype: torch.dtype):
        self.storage = torch.empty((num_blocks, block_numel), dtype=dtype, pin_memory=True)
        self.block_nbytes = block_numel * self.storage.element_size()
        self._free: List[int] = list(range(num_blocks - 1, -1, -1))

    def reserve(self, count: int) -> List[int]:
        if count > len(self._free):
            raise RuntimeError(f"host KV pool exhausted ({count} > {len(self._free)})")
        return [self._free.pop() for _ in range(count)]

    def release(self, slots: List[int]) -> None:
        self._free.extend(slots)

    def block_ptr(self, slot: int) -> int:
        return self.storage.data_ptr() + slot * self.block_nbytes
