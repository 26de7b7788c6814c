"""Reusable device buffers for activations reloaded in the backward pass."""
import logging
from collections import defaultdict
from typing import Dict, List, Tuple

import torch

logger = logging.getLogger(__name__)

_Key = Tuple[torch.Size, torch.dtype]


class ReloadBufferPool:
    """Keeps device buffers across layers so backward does not churn the allocator.

    A buffer handed back with release() is given out again by the next
    acquire() of the same shape and dtype.
    """

    def __init__(self, device: str = "cuda", max_cached: int = 64) -> None:
        self.device = device
        self.max_cached = max_cached
        self._free: Dict[_Key, List[torch.Tensor]] = defaultdict(list)
        self._allocated = 0

    def acquire(self, shape: torch.Size, dtype: torch.dtype) -> torch.Tensor:
        key = (torch.Size(shape), dtype)
        bucket = self._free[key]
        if bucket:
            return bucket.pop()
        self._allocated += 1
        return torch.empty(shape, dtype=dtype, device=self.device)

    def release(self, buf: torch.Tensor) -> None:
        key = (buf.shape, buf.dtype)
        bucket = self._free[key]
        if len(bucket) < self.max_cached:
            bucket.append(buf)

    def clear(self) -> None:
        n = sum(len(b) for b in self._free.values())
        self._free.clear()
        logger.debug("reload pool: dropped %d cached buffers (%d allocated)", n, self._allocated)
