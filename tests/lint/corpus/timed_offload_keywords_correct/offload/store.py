"""Stores KV blocks to pinned host memory on an offload stream, after an event the model's
stream records once the blocks are written."""

from __future__ import annotations

import torch

from offload.metrics import TransferLog, timed


class BlockStore:
    def __init__(self, kv_cache: torch.Tensor, num_host_blocks: int, log: TransferLog) -> None:
        self.kv_cache = kv_cache
        self.host = torch.empty((num_host_blocks, *kv_cache.shape[1:]), dtype=kv_cache.dtype, pin_memory=True)
        self.offload_stream = torch.cuda.Stream(device=kv_cache.device)
        self.log = log

    @timed
    def store(self, block_ids: list[int], host_ids: list[int], after: torch.cuda.Event | None = None) -> None:
        if after is not None:
            self.offload_stream.wait_event(after)
        self.log.note(block_ids, self.kv_cache)
        with torch.cuda.stream(self.offload_stream):
            for block, slot in zip(block_ids, host_ids):
                self.host[slot].copy_(self.kv_cache[block], non_blocking=True)

    def store_after_step(self, block_ids: list[int], host_ids: list[int]) -> None:
        written = torch.cuda.Event()
        written.record()
        self.store(block_ids, host_ids, after=written)
