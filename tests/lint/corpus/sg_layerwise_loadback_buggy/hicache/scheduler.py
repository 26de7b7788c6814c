"""Minimal scheduler loop showing how load-back overlaps the forward pass."""

from typing import Dict, List

import torch

from .cache_controller import HiCacheController
from .memory_pool import MHATokenToKVPool, MHATokenToKVPoolHost, PagedAllocator


class HiCacheScheduler:
    def __init__(self, model, num_pages: int, host_pages: int, layer_num: int, head_num: int, head_dim: int):
        self.model = model
        self.allocator = PagedAllocator(num_pages)
        self.device_pool = MHATokenToKVPool(num_pages, layer_num, head_num, head_dim)
        self.host_pool = MHATokenToKVPoolHost(self.device_pool, host_pages)
        self.controller = HiCacheController(self.allocator, self.device_pool, self.host_pool)
        self.req_pages: Dict[str, torch.Tensor] = {}

    def load_back(self, rid: str, host_pages: torch.Tensor, node_id: int) -> bool:
        device_pages = self.controller.load(host_pages, node_id)
        if device_pages is None:
            return False
        self.req_pages[rid] = device_pages
        return True

    def finish_request(self, rid: str) -> None:
        # pages go straight back to the allocator; the next load may reuse them
        self.allocator.free(self.req_pages.pop(rid))

    def run_batch(self, rids: List[str], input_ids: torch.Tensor) -> torch.Tensor:
        producer_id = self.controller.start_loading()
        self.controller.layer_done_counter.set_consumer(producer_id)
        pages = torch.cat([self.req_pages[r] for r in rids]).to("cuda", non_blocking=True)
        hidden = self.model.embed(input_ids)
        for layer_id in range(self.device_pool.layer_num):
            kv = self.device_pool.get_kv_buffer(layer_id)  # waits for layer_id to land
            hidden = self.model.layers[layer_id](hidden, kv, pages)
        return self.model.lm_head(hidden)
