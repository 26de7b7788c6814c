"""Reusable GPU buffers for reloaded activations (stable addresses for CUDA graphs)."""

from collections import defaultdict, deque
from typing import Deque, Dict, Optional, Tuple

import torch

PoolEntry = Tuple[torch.Tensor, Optional[torch.cuda.Event]]


class GpuReloadBufferPool:
    def __init__(self, device: str = "cuda"):
        self.device = torch.device(device)
        self._free: Dict[Tuple, Deque[PoolEntry]] = defaultdict(deque)
        self.hits = 0
        self.misses = 0

    @staticmethod
    def _key(shape, dtype) -> Tuple:
        return (tuple(shape), dtype)

    def allocate(self, shape, dtype) -> PoolEntry:
        free = self._free[self._key(shape, dtype)]
        if free:
            self.hits += 1
            return free.popleft()
        self.misses += 1
        return torch.empty(shape, dtype=dtype, device=self.device), None

    def free(self, tensor: torch.Tensor) -> None:
        # The last kernels reading `tensor` were queued on the current stream.
        release = torch.cuda.Event()
        release.record(torch.cuda.current_stream())
        self._free[self._key(tensor.shape, tensor.dtype)].append((tensor, release))
