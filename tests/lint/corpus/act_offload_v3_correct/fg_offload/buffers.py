# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from collections import defaultdict

import torch

_Key = tuple[tuple[int, ...], torch.dtype]


class DeviceBufferPool:
    """Recycles reload destinations across micro-batches to keep the allocator from fragmenting."""

    def __init__(self, device: torch.device) -> None:
        self.device = device
        self._free: dict[_Key, list[torch.Tensor]] = defaultdict(list)

    def acquire(self, shape: torch.Size, dtype: torch.dtype) -> torch.Tensor:
        free = self._free[(tuple(shape), dtype)]
        if free:
            return free.pop()
        return torch.empty(shape, dtype=dtype, device=self.device)

    def release(self, buf: torch.Tensor) -> None:
        self._free[(tuple(buf.shape), buf.dtype)].append(buf)

    def clear(self) -> None:
        self._free.clear()
