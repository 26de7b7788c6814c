from typing import Iterable

import torch

from .chunk import Chunk
from .chunk_manager import ChunkManager


class StaticPlacementPolicy:
    """Keeps a fixed fraction of chunks on the GPU; the remainder lives on host (or disk)."""

    def __init__(self, chunk_manager: ChunkManager, shard_param_frac: float = 1.0,
                 offload_param_frac: float = 0.0, cpu_mem_budget: int = 64 << 30):
        self.chunk_manager = chunk_manager
        self.shard_param_frac = shard_param_frac
        self.offload_param_frac = offload_param_frac
        self.cpu_mem_budget = cpu_mem_budget
        self.spilled: dict[int, str] = {}

    def setup_grads_device(self, params: Iterable[torch.nn.Parameter],
                           grads_device_map: dict[torch.nn.Parameter, torch.device]) -> None:
        device = torch.device("cpu") if self.offload_param_frac > 0 else torch.device("cuda")
        for p in params:
            grads_device_map[p] = device

    def evict_tensors(self, chunks: Iterable[Chunk]) -> int:
        freed = 0
        cpu = torch.device("cpu")
        for chunk in chunks:
            if not chunk.is_gathered:
                continue
            self.chunk_manager.move_chunk(chunk, cpu)
            freed += chunk.chunk_mem
            if self.chunk_manager.total_mem["cpu"] > self.cpu_mem_budget:
                self.spilled[chunk.chunk_id] = str(self.chunk_manager.spill_to_disk(chunk))
        return freed
