import enum
import time
from collections import deque
from dataclasses import dataclass, field

import torch


class CacheLevel(enum.Enum):
    PRIMARY = 0  # GPU
    SECONDARY = 1  # pinned host


@dataclass
class KVCacheBlock:
    block_id: int
    level: CacheLevel
    pool_index: int
    priority: int = 35
    ref_count: int = 0
    last_used: float = field(default_factory=time.monotonic)
    # cudaEvent_t of an offload still writing this block's secondary copy
    pending_offload: object | None = None

    @property
    def is_primary(self) -> bool:
        return self.level is CacheLevel.PRIMARY


class BlockPool:
    def __init__(self, num_primary: int, num_secondary: int, block_shape: tuple[int, ...], dtype: torch.dtype):
        self.primary = torch.empty((num_primary, *block_shape), dtype=dtype, device="cuda")
        self.secondary = torch.empty((num_secondary, *block_shape), dtype=dtype, pin_memory=True)
        self.block_bytes = self.primary[0].numel() * self.primary.element_size()
        self.free_secondary: deque[int] = deque(range(num_secondary))
        self.blocks: dict[int, KVCacheBlock] = {}

    def ptr(self, level: CacheLevel, index: int) -> int:
        base = self.primary if level is CacheLevel.PRIMARY else self.secondary
        return base.data_ptr() + index * self.block_bytes

    def alloc_secondary(self) -> int:
        if not self.free_secondary:
            raise RuntimeError("secondary KV cache pool exhausted")
        return self.free_secondary.popleft()

    def pick_victim(self) -> KVCacheBlock:
        """Lowest retention priority first, then least recently used."""
        candidates = [b for b in self.blocks.values() if b.is_primary and b.ref_count == 0]
        if not candidates:
            raise RuntimeError("no evictable block in the primary pool")
        return min(candidates, key=lambda b: (b.priority, b.last_used))
