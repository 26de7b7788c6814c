"""Decode loop with retraction: when the pool runs out, the newest requests are retracted, their
KV offloaded to host and their device slots freed; they resume once memory is available."""

from typing import List

import torch

from sgl_retract.memory_pool import MHATokenToKVPool, TokenToKVPoolAllocator
from sgl_retract.offloader import RetractedKVOffloader


class Scheduler:
    def __init__(self, model, size: int, layer_num: int, head_num: int, head_dim: int):
        self.model = model
        self.allocator = TokenToKVPoolAllocator(size)
        self.kv_pool = MHATokenToKVPool(size, layer_num, head_num, head_dim)
        self.offloader = RetractedKVOffloader(self.kv_pool, max_host_tokens=4 * size)
        self.running: List = []
        self.retracted: List = []

    def decode_step(self):
        out_cache_loc = self.allocator.alloc(len(self.running))
        if out_cache_loc is None:
            self.retract_decode()
            return None
        for req, loc in zip(self.running, out_cache_loc.split(1)):
            req.kv_indices = torch.cat([req.kv_indices, loc])
        return self.model(self.running, out_cache_loc, self.kv_pool)

    def retract_decode(self) -> None:
        self.running.sort(key=lambda r: len(r.output_ids))
        while self.running and self.allocator.available_size() < len(self.running):
            req = self.running.pop()
            if not self.offloader.swap_out(req.rid, req.kv_indices):
                req.kv_indices = req.kv_indices[:0]  # no room on host: recompute later
            self.allocator.free(req.kv_indices)
            self.retracted.append(req)

    def resume_retracted(self) -> None:
        still_waiting = []
        for req in self.retracted:
            if not self.offloader.is_swapped_out(req.rid):
                still_waiting.append(req)
                continue
            new_indices = self.allocator.alloc(req.kv_indices.numel())
            if new_indices is None:
                still_waiting.append(req)
                continue
            self.offloader.swap_in(req.rid, new_indices)
            req.kv_indices = new_indices
            self.running.append(req)
        self.retracted = still_waiting
