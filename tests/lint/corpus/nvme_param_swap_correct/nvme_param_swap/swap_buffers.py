"""Aligned, page-locked staging buffers shared by swap-out and swap-in."""
import math
from typing import Dict, List

import torch

from .constants import SWAP_ALIGNMENT_BYTES


def aligned_numel(numel: int, element_size: int) -> int:
    per_block = SWAP_ALIGNMENT_BYTES // element_size
    return int(math.ceil(numel / per_block) * per_block)


class SwapBufferPool:

    def __init__(self, count: int, numel: int, dtype: torch.dtype):
        element_size = torch.empty(0, dtype=dtype).element_size()
        self.buffer_numel = aligned_numel(numel, element_size)
        self.dtype = dtype
        self._buffers: List[torch.Tensor] = [
            torch.zeros(self.buffer_numel, dtype=dtype, pin_memory=True) for _ in range(count)
        ]
        self._free: List[int] = list(range(count))
        self._assigned: Dict[int, int] = {}

    def allocate(self, param_id: int, numel: int) -> torch.Tensor:
        assert param_id not in self._assigned, f"param {param_id} already holds a swap buffer"
        if numel > self.buffer_numel:
            raise ValueError(f"partition of {numel} elements does not fit a {self.buffer_numel} swap buffer")
        if not self._free:
            raise RuntimeError("out of swap buffers, increase `buffer_count` in offload_param")
        index = self._free.pop()
        self._assigned[param_id] = index
        return self._buffers[index].narrow(0, 0, numel)

    def free(self, param_id: int) -> None:
        self._free.append(self._assigned.pop(param_id))

    @property
    def available(self) -> int:
        return len(self._free)
