# SPDX-License-Identifier: Apache-2.0
import threading
from collections import deque
from typing import Dict, Tuple

import torch

from .constants import SWAP_BUFFER_ALIGNMENT


def aligned_numel(numel: int) -> int:
    rem = numel % SWAP_BUFFER_ALIGNMENT
    return numel if rem == 0 else numel + SWAP_BUFFER_ALIGNMENT - rem


class DeviceBufferPool:
    """Fixed device buffers shared by every swapped partition."""

    def __init__(self, num_buffers: int, numel: int, dtype: torch.dtype, device: torch.device):
        self.numel = aligned_numel(numel)
        self._buffers = [torch.empty(self.numel, dtype=dtype, device=device) for _ in range(num_buffers)]
        self._free = deque(range(num_buffers))
        self._lock = threading.Lock()

    def acquire(self) -> Tuple[int, torch.Tensor]:
        with self._lock:
            if not self._free:
                raise RuntimeError(f"no free swap buffer ({len(self._buffers)} in use)")
            idx = self._free.popleft()
        return idx, self._buffers[idx]

    def release(self, idx: int) -> None:
        with self._lock:
            self._free.append(idx)


class PinnedPartitionStore:
    def __init__(self) -> None:
        self._parts: Dict[int, torch.Tensor] = {}

    def put(self, ds_id: int, tensor: torch.Tensor) -> None:
        self._parts[ds_id] = tensor.detach().reshape(-1).to("cpu").pin_memory()

    def get(self, ds_id: int) -> torch.Tensor:
        return self._parts[ds_id]
