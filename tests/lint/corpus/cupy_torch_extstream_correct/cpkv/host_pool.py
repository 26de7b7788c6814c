"""Pinned host blocks, one array per layer, allocated through cupy's pinned allocator."""
from typing import List

import cupyx


class PinnedBlockPool:
    def __init__(self, num_layers: int, num_blocks: int, block_elems: int, dtype):
        self.layers = [cupyx.empty_pinned((num_blocks, block_elems), dtype=dtype)
                       for _ in range(num_layers)]
        self._free: List[int] = list(range(num_blocks - 1, -1, -1))

    def allocate(self, n: int) -> List[int]:
        if n > len(self._free):
            raise MemoryError(f"pinned pool exhausted ({n} > {len(self._free)})")
        return [self._free.pop() for _ in range(n)]

    def release(self, blocks: List[int]) -> None:
        self._free.extend(blocks)
