# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.

from collections import defaultdict, deque
from typing import Deque, Dict, Tuple

import torch

_PoolKey = Tuple[Tuple[int, ...], torch.dtype]


class GPUTensorPool:
    """Keeps GPU tensors released after bprop so reloads can reuse them."""

    def __init__(self, tensors_per_shape: int):
        self._tensors_per_shape = tensors_per_shape
        self._free: Dict[_PoolKey, Deque[torch.Tensor]] = defaultdict(deque)
        self.hits = 0
        self.misses = 0

    @staticmethod
    def _key(shape, dtype) -> _PoolKey:
        return tuple(shape), dtype

    def acquire(self, shape, dtype: torch.dtype, device: torch.device) -> torch.Tensor:
        bucket = self._free.get(self._key(shape, dtype))
        if bucket:
            self.hits += 1
            return bucket.popleft()
        self.misses += 1
        return torch.empty(shape, dtype=dtype, device=device)

    def release(self, tensor: torch.Tensor) -> None:
        bucket = self._free[self._key(tensor.shape, tensor.dtype)]
        if len(bucket) < self._tensors_per_shape:
            bucket.append(tensor)
