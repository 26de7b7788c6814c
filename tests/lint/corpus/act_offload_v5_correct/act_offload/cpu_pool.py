import threading
from collections import defaultdict
from typing import Dict, List, Tuple

import torch

_Key = Tuple[Tuple[int, ...], torch.dtype]


class PinnedBufferPool:
    """Reuses pinned host tensors across microbatches to avoid repeated cudaHostAlloc."""

    def __init__(self) -> None:
        self._free: Dict[_Key, List[torch.Tensor]] = defaultdict(list)
        self._lock = threading.Lock()

    def acquire(self, shape: torch.Size, dtype: torch.dtype) -> torch.Tensor:
        key = (tuple(shape), dtype)
        with self._lock:
            if self._free[key]:
                return self._free[key].pop()
        return torch.empty(shape, dtype=dtype, device="cpu", pin_memory=True)

    def release(self, tensor: torch.Tensor) -> None:
        with self._lock:
            self._free[(tuple(tensor.shape), tensor.dtype)].append(tensor)
