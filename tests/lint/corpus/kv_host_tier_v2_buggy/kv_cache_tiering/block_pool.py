import threading
from collections import deque
from typing import List, Optional, Sequence

import torch


class BlockPool:
    """Primary (GPU) and secondary (pinned host) KV block storage."""

    def __init__(self, num_primary_blocks: int, num_secondary_blocks: int,
                 block_shape: Sequence[int], dtype: torch.dtype, max_onboard_blocks: int):
        self.primary = torch.empty((num_primary_blocks, *block_shape), dtype=dtype, device="cuda")
        self.secondary = torch.empty((num_secondary_blocks, *block_shape), dtype=dtype,
                                     pin_memory=True)
        # landing zone for host blocks before they are scattered into the primary pool
        self.onboard_staging = torch.empty((max_onboard_blocks, *block_shape), dtype=dtype,
                                           device="cuda")
        self.max_onboard_blocks = max_onboard_blocks
        self.block_nbytes = self.primary[0].numel() * self.primary.element_size()
        self._lock = threading.Lock()
        self._free_primary = deque(range(num_primary_blocks))
        self._free_secondary = deque(range(num_secondary_blocks))

    def primary_ptr(self, block_id: int) -> int:
        return self.primary.data_ptr() + block_id * self.block_nbytes

    def secondary_ptr(self, block_id: int) -> int:
        return self.secondary.data_ptr() + block_id * self.block_nbytes

    def staging_ptr(self, slot: int) -> int:
        return self.onboard_staging.data_ptr() + slot * self.block_nbytes

    @staticmethod
    def _take(free: deque, n: int) -> Optional[List[int]]:
        if len(free) < n:
            return None
        return [free.popleft() for _ in range(n)]

    def alloc_primary(self, n: int) -> Optional[List[int]]:
        with self._lock:
            return self._take(self._free_primary, n)

    def alloc_secondary(self, n: int) -> Optional[List[int]]:
        with self._lock:
            return self._take(self._free_secondary, n)

    def release_primary(self, ids: Sequence[int]) -> None:
        with self._lock:
            self._free_primary.extend(ids)

    def release_secondary(self, ids: Sequence[int]) -> None:
        with self._lock:
            self._free_secondary.extend(ids)
