import collections
import threading
from typing import Optional

import torch

from .constants import KV_DTYPE


class BlockPool:

    def __init__(self, num_blocks: int, block_numel: int, device: torch.device, pin: bool = False):
        self.kv = torch.zeros(
            (num_blocks, block_numel), dtype=KV_DTYPE, device=device, pin_memory=pin
        )
        self._free = collections.deque(range(num_blocks))
        self._lock = threading.Lock()

    def try_allocate(self) -> Optional[int]:
        with self._lock:
            return self._free.popleft() if self._free else None

    def release(self, block_id: int) -> None:
        with self._lock:
            self._free.append(block_id)

    @property
    def num_free(self) -> int:
        return len(self._free)
