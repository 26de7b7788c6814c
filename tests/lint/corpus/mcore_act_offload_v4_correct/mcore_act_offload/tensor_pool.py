# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from collections import defaultdict, deque
from typing import Deque, Dict, Tuple

import torch


class OffloadTensorPool:
    """Reuses pinned host tensors keyed by (shape, dtype)."""

    def __init__(self, pin_memory: bool = True):
        self.pin_memory = pin_memory
        self._free: Dict[Tuple, Deque[torch.Tensor]] = defaultdict(deque)

    def allocate(self, shape: torch.Size, dtype: torch.dtype) -> torch.Tensor:
        key = (tuple(shape), dtype)
        if self._free[key]:
            return self._free[key].popleft()
        return torch.empty(shape, dtype=dtype, device="cpu", pin_memory=self.pin_memory)

    def free(self, tensor: torch.Tensor) -> None:
        self._free[(tuple(tensor.shape), tensor.dtype)].append(tensor)


def offload_to_host(host_tensor: torch.Tensor, device_tensor: torch.Tensor) -> None:
    host_tensor.copy_(device_tensor, non_blocking=True)


def reload_to_device(host_tensor: torch.Tensor, device: torch.device) -> torch.Tensor:
    device_tensor = torch.empty(host_tensor.shape, dtype=host_tensor.dtype, device=device)
    device_tensor.copy_(host_tensor, non_blocking=True)
    return device_tensor
