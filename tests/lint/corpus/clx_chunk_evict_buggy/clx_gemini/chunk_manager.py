"""Owns the chunks and the stream that moves them between CUDA and host."""
from collections import deque

import torch

from .chunk import Chunk


class ChunkManager:
    def __init__(self, chunk_size: int, init_device, dtype: torch.dtype = torch.float16, pin_memory: bool = True):
        self.chunk_size = chunk_size
        self.device = torch.device(init_device)
        self.dtype = dtype
        self.pin_memory = pin_memory
        self.chunk_stream = torch.cuda.Stream(device=self.device)
        self.chunks: deque[Chunk] = deque()
        self.tensor_chunk_map: dict[torch.Tensor, Chunk] = {}
        self.accessed_chunks: set[Chunk] = set()
        self.total_mem = {"cpu": 0, "cuda": 0}

    def register_tensor(self, tensor: torch.Tensor) -> Chunk:
        if not self.chunks or self.chunks[-1].utilized_size + tensor.numel() > self.chunk_size:
            chunk = Chunk(len(self.chunks), self.chunk_size, self.dtype, self.device, self.pin_memory)
            self.chunks.append(chunk)
            self.total_mem["cuda"] += chunk.chunk_mem
        chunk = self.chunks[-1]
        chunk.append_tensor(tensor)
        self.tensor_chunk_map[tensor] = chunk
        return chunk

    def copy_tensor_to_chunk_slice(self, tensor: torch.Tensor, data: torch.Tensor) -> None:
        self.tensor_chunk_map[tensor].copy_tensor_to_chunk_slice(tensor, data)

    def access_chunk(self, chunk: Chunk) -> None:
        if chunk.device_type == "cpu":
            self.move_chunk(chunk, self.device)
            torch.cuda.current_stream(self.device).wait_stream(self.chunk_stream)
        self.accessed_chunks.add(chunk)

    def release_chunk(self, chunk: Chunk) -> None:
        self.accessed_chunks.discard(chunk)

    def move_chunk(self, chunk: Chunk, device: torch.device, force_copy: bool = False) -> None:
        if chunk.device_type == device.type:
            return
        self.total_mem[chunk.device_type] -= chunk.chunk_mem
        with torch.cuda.stream(self.chunk_stream):
            chunk.shard_move(device, force_copy)
        self.total_mem[chunk.device_type] += chunk.chunk_mem

    def evictable(self) -> list[Chunk]:
        return [c for c in self.chunks if c.device_type == "cuda" and c not in self.accessed_chunks]
