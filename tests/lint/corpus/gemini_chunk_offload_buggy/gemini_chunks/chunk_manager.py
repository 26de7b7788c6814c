from collections import deque
from typing import Deque, Dict, Iterable, Set

import torch

from .chunk import Chunk


class ChunkManager:
    """Owns every chunk and tracks where its shard lives and when it was last touched."""

    def __init__(self, chunk_size: int, dtype: torch.dtype = torch.float16, pin_memory: bool = True):
        self.chunk_size = chunk_size
        self.dtype = dtype
        self.pin_memory = pin_memory
        self.device = torch.device("cuda", torch.cuda.current_device())
        self.chunk_groups: Dict[str, Deque[Chunk]] = {}
        self.accessed_chunks: Set[Chunk] = set()
        self.last_access_step: Dict[Chunk, int] = {}
        self.total_mem: Dict[str, int] = {"cpu": 0, "cuda": 0}
        self.step = 0
        self._offload_stream = torch.cuda.Stream()

    def new_chunk(self, group_name: str) -> Chunk:
        chunk = Chunk(self.chunk_size, self.dtype, pin_memory=self.pin_memory)
        self.chunk_groups.setdefault(group_name, deque()).append(chunk)
        self._add_memory_usage(chunk.memory_usage)
        return chunk

    def access_chunk(self, chunk: Chunk) -> None:
        if chunk in self.accessed_chunks:
            return
        if chunk.device_type == "cpu":
            self.move_chunk(chunk, self.device)
        self.accessed_chunks.add(chunk)
        self.last_access_step[chunk] = self.step

    def release_chunk(self, chunk: Chunk) -> None:
        self.accessed_chunks.discard(chunk)

    def move_chunk(self, chunk: Chunk, device: torch.device, async_move: bool = False) -> None:
        if chunk.device_type == device.type:
            return
        self._sub_memory_usage(chunk.memory_usage)
        if async_move and device.type == "cpu":
            with torch.cuda.stream(self._offload_stream):
                chunk.shard_move(device, non_blocking=True)
        else:
            chunk.shard_move(device)
        self._add_memory_usage(chunk.memory_usage)

    def evictable_chunks(self) -> Iterable[Chunk]:
        for group in self.chunk_groups.values():
            for chunk in group:
                if chunk.device_type == "cuda" and chunk not in self.accessed_chunks and chunk.can_move:
                    yield chunk

    def end_step(self) -> None:
        self.step += 1

    def _add_memory_usage(self, usage: Dict[str, int]) -> None:
        for k, v in usage.items():
            self.total_mem[k] += v

    def _sub_memory_usage(self, usage: Dict[str, int]) -> None:
        for k, v in usage.items():
            self.total_mem[k] -= v
