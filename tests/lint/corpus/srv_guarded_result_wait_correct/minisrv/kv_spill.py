"""Spills a finished request's KV blocks to pinned host memory on a store stream."""

import torch


class HostKVSpiller:
    def __init__(self, kv_cache, host_slots):
        self.kv_cache = kv_cache
        self.host = torch.empty(
            (host_slots,) + tuple(kv_cache.shape[1:]), dtype=kv_cache.dtype, pin_memory=True
        )
        self.store_stream = torch.cuda.Stream()
        self.next_slot = 0

    def spill(self, block_ids):
        slots = list(range(self.next_slot, self.next_slot + len(block_ids)))
        self.next_slot += len(block_ids)
        index = torch.tensor(block_ids, device=self.kv_cache.device)
        with torch.cuda.stream(self.store_stream):
            blocks = self.kv_cache.index_select(0, index)
            self.host[slots[0] : slots[-1] + 1].copy_(blocks, non_blocking=True)
        return slots
