"""Brings chunks to CUDA before an op and drops them right after."""
from typing import Iterable

import torch

from .block_allocator import ChunkBlockAllocator
from .chunk import HostChunk
from .chunk_config import CHUNK_DTYPE, CHUNK_NUMEL, KEEP_GATHERED


class ChunkManager:
    def __init__(self, device, chunk_numel: int = CHUNK_NUMEL):
        self.device = torch.device(device)
        self.chunk_numel = chunk_numel
        self.chunk_stream = torch.cuda.Stream(device=self.device)
        self.allocator = ChunkBlockAllocator(chunk_numel, CHUNK_DTYPE, self.device)
        self.chunks: list[HostChunk] = []
        self.param_to_chunk: dict[torch.nn.Parameter, HostChunk] = {}

    def register(self, params: Iterable[torch.nn.Parameter]) -> None:
        for p in params:
            if not self.chunks or not self.chunks[-1].has_room(p.numel()):
                self.chunks.append(HostChunk(len(self.chunks), self.chunk_numel, CHUNK_DTYPE))
            self.chunks[-1].append(p)
            self.param_to_chunk[p] = self.chunks[-1]

    def access_chunk(self, chunk: HostChunk) -> None:
        if chunk.is_gathered:
            return
        with torch.cuda.stream(self.chunk_stream):
            block = self.allocator.take()
            # expect: KVG004
            block.copy_(chunk.cpu_shard, non_blocking=True)
            ready = torch.cuda.Event()
            ready.record(self.chunk_stream)
        torch.cuda.current_stream(self.device).wait_event(ready)
        chunk.bind(block)

    def release_chunk(self, chunk: HostChunk) -> None:
        if KEEP_GATHERED or not chunk.is_gathered:
            return
        block = chunk.cuda_block
        chunk.bind(None)
        self.allocator.give_back(block)


class ParamOpHook:
    """Wraps every operator: gather its chunks before, release them after."""

    def __init__(self, manager: ChunkManager):
        self.manager = manager

    def _chunks(self, params) -> list[HostChunk]:
        seen: dict[int, HostChunk] = {}
        for p in params:
            chunk = self.manager.param_to_chunk[p]
            seen.setdefault(chunk.chunk_id, chunk)
        return list(seen.values())

    def pre_op(self, params) -> None:
        for chunk in self._chunks(params):
            self.manager.access_chunk(chunk)

    def post_op(self, params) -> None:
        for chunk in self._chunks(params):
            self.manager.release_chunk(chunk)
