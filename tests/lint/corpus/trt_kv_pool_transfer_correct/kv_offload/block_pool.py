from dataclasses import dataclass
from typing import Optional

import torch

from .constants import CacheLevel


@dataclass
class KVCacheBlock:
    block_id: int
    level: CacheLevel
    ref_count: int = 0
    block_key: Optional[int] = None


class BlockPool:
    """A flat pool of equally sized KV blocks living on one cache level."""

    def __init__(self, level: CacheLevel, num_blocks: int, block_shape: tuple[int, ...],
                 dtype: torch.dtype):
        self.level = level
        on_device = level == CacheLevel.PRIMARY
        self.pool = torch.empty((num_blocks, *block_shape),
                                dtype=dtype,
                                device="cuda" if on_device else "cpu",
                                pin_memory=not on_device)
        self.blocks = [KVCacheBlock(i, level) for i in range(num_blocks)]
        self._free_ids: list[int] = list(range(num_blocks - 1, -1, -1))

    @property
    def block_nbytes(self) -> int:
        return self.pool[0].numel() * self.pool.element_size()

    @property
    def num_free_blocks(self) -> int:
        return len(self._free_ids)

    def block_ptr(self, block_id: int) -> int:
        return self.pool.data_ptr() + block_id * self.block_nbytes

    def allocate(self) -> int:
        if not self._free_ids:
            raise RuntimeError(f"{self.level.name} pool exhausted")
        block_id = self._free_ids.pop()
        self.blocks[block_id].ref_count = 1
        return block_id

    def release(self, block_id: int) -> None:
        block = self.blocks[block_id]
        block.ref_count -= 1
        if block.ref_count == 0:
            block.block_key = None
            self._free_ids.append(block_id)
