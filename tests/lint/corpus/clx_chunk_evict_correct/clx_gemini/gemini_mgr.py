"""Decides which chunks stay on CUDA before each operator runs."""
from typing import Iterable

import torch

from .chunk import Chunk
from .chunk_manager import ChunkManager
from .memstats import MemStatsCollector


class GeminiManager:
    def __init__(self, chunk_manager: ChunkManager, cuda_budget_bytes: int):
        self._chunk_manager = chunk_manager
        self._cuda_budget = cuda_budget_bytes
        self._mem_stats_collector = MemStatsCollector(chunk_manager)
        self._evict_count = 0

    def adjust_layout(self, chunks: Iterable[Chunk]) -> None:
        chunks = tuple(chunks)
        self._mem_stats_collector.sample_overall_data()
        need = sum(c.chunk_mem for c in chunks if c.device_type == "cpu")
        used = self._chunk_manager.total_mem["cuda"] + self._mem_stats_collector.non_model_data_cuda()
        overflow = used + need - self._cuda_budget
        if overflow > 0:
            self._evict(overflow, exclude=set(chunks))
        for chunk in chunks:
            self._chunk_manager.access_chunk(chunk)

    def _evict(self, to_free: int, exclude: set) -> None:
        cpu = torch.device("cpu")
        for chunk in self._chunk_manager.evictable():
            if to_free <= 0:
                break
            if chunk in exclude:
                continue
            self._chunk_manager.move_chunk(chunk, cpu)
            to_free -= chunk.chunk_mem
            self._evict_count += 1

    def post_iter(self) -> None:
        for chunk in list(self._chunk_manager.accessed_chunks):
            self._chunk_manager.release_chunk(chunk)
