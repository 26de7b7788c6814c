from dataclasses import dataclass
from typing import List

import torch

from .chunk import Chunk
from .chunk_manager import ChunkManager


@dataclass
class PlacementStats:
    evicted_chunks: int = 0
    evicted_bytes: int = 0


class AutoPlacementPolicy:
    """Evicts the chunks whose last access is the oldest until the CUDA demand is met."""

    def __init__(self, chunk_manager: ChunkManager, cuda_capacity: int, warmup_non_model_data_ratio: float = 0.8):
        self.chunk_manager = chunk_manager
        self.cuda_capacity = cuda_capacity
        self.warmup_non_model_data_ratio = warmup_non_model_data_ratio
        self.stats = PlacementStats()

    def _eviction_order(self) -> List[Chunk]:
        last_access = self.chunk_manager.last_access_step
        return sorted(self.chunk_manager.evictable_chunks(), key=lambda c: last_access.get(c, -1))

    def evict_tensors(self, cuda_demand: int, warmup: bool, non_model_data: int = 0) -> int:
        if warmup:
            non_model_data = int(self.cuda_capacity * self.warmup_non_model_data_ratio)
        available = self.cuda_capacity - non_model_data - self.chunk_manager.total_mem["cuda"]
        to_free = cuda_demand - available
        freed = 0
        if to_free <= 0:
            return freed
        for chunk in self._eviction_order():
            if freed >= to_free:
                break
            freed += chunk.shard_mem
            self.chunk_manager.move_chunk(chunk, torch.device("cpu"), async_move=True)
            self.stats.evicted_chunks += 1
        self.stats.evicted_bytes += freed
        if freed < to_free:
            raise RuntimeError(f"Adjust layout failed! No enough CUDA memory: need {to_free}, freed {freed}")
        return freed
