from __future__ import annotations

import enum
from dataclasses import dataclass


class EvictionPolicy(enum.Enum):
    LRU = "lru"


@dataclass(frozen=True)
class CacheConfig:
    num_embeddings: int
    embedding_dim: int
    cache_load_factor: float = 0.2
    max_ids_per_batch: int = 65536
    policy: EvictionPolicy = EvictionPolicy.LRU

    @property
    def cache_slots(self) -> int:
        return max(int(self.num_embeddings * self.cache_load_factor), self.max_ids_per_batch)
