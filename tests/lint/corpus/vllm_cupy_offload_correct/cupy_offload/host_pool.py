from __future__ import annotations

import numpy as np
import cupyx

from .config import OffloadConfig


class HostBlockPool:
    """Pinned host copy of the paged KV cache: [layers, blocks, 2, bs, heads, dim]."""

    def __init__(self, config: OffloadConfig):
        self.num_layers = config.num_layers
        self.num_blocks = config.num_host_blocks
        shape = (config.num_layers, config.num_host_blocks, *config.block_shape)
        self.buffer: np.ndarray = cupyx.empty_pinned(shape, dtype=np.dtype(config.dtype))
        self._free = list(range(config.num_host_blocks))

    def block(self, layer: int, block_id: int) -> np.ndarray:
        return self.buffer[layer, block_id]

    def allocate(self, n: int) -> list[int]:
        if n > len(self._free):
            raise MemoryError(f"host pool exhausted: need {n}, have {len(self._free)}")
        taken, self._free = self._free[:n], self._free[n:]
        return taken

    def release(self, block_ids: list[int]) -> None:
        self._free.extend(block_ids)
