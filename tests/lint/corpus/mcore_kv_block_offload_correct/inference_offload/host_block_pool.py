# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from typing import List

from cuda.bindings import driver

from .cuda_utils import check_cu


class HostBlockPool:
    """Fixed pool of pinned host KV blocks for paused requests."""

    def __init__(self, num_blocks: int, block_bytes: int):
        self.block_bytes = block_bytes
        self.base = int(check_cu(driver.cuMemHostAlloc(num_blocks * block_bytes, 0)))
        self._free: List[int] = list(range(num_blocks))

    def allocate(self, count: int) -> List[int]:
        if count > len(self._free):
            raise RuntimeError(f"host KV pool exhausted ({count} > {len(self._free)})")
        blocks, self._free = self._free[:count], self._free[count:]
        return blocks

    def release(self, blocks: List[int]) -> None:
        self._free.extend(blocks)

    def address(self, block: int) -> int:
        return self.base + block * self.block_bytes
