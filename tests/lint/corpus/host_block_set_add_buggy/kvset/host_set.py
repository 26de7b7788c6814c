"""A set of KV blocks mirrored in pinned host memory. ``add`` stages one block's pages from
the GPU cache on the set's own stream; ``insert`` puts a block at a given slot."""

from typing import Dict, List

import torch


class HostBlockSet:
    def __init__(self, gpu_cache: torch.Tensor, capacity: int) -> None:
        self.gpu_cache = gpu_cache
        self.host = torch.empty((capacity,) + tuple(gpu_cache.shape[1:]), dtype=gpu_cache.dtype,
                                pin_memory=True)
        self.stream = torch.cuda.Stream(device=gpu_cache.device)
        self.slot_of: Dict[int, int] = {}
        self.free: List[int] = list(range(capacity))

    def add(self, block_id: int) -> int:
        slot = self.free.pop()
        self.insert(slot, block_id)
        return slot

    def insert(self, slot: int, block_id: int) -> None:
        with torch.cuda.stream(self.stream):
            # expect: KVG001
            self.host[slot].copy_(self.gpu_cache[block_id], non_blocking=True)
        self.slot_of[block_id] = slot
