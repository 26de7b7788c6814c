from __future__ import annotations

import enum
from dataclasses import dataclass


class EvictionPolicy(str, enum.Enum):
    LRU = "lru"
    FIFO = "fifo"


@dataclass(frozen=True)
class OffloadConfig:
    staging_blocks: int = 64
    io_threads: int = 2
    store_capacity_bytes: int = 8 << 30
    eviction: EvictionPolicy = EvictionPolicy.LRU
    poll_initial_s: float = 50e-6
    poll_max_s: float = 2e-3
    poll_budget_s: float = 0.05  # after this, park a pool thread on the event instead
