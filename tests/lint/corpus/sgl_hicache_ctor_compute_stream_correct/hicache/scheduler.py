"""Overlap scheduler loop: the CPU prepares step N+1 while the forward of step N is still
running on the forward stream, so pages freed here may still be read by queued kernels."""

import torch

from hicache.cache_controller import HiCacheController
from hicache.host_pool import MHATokenToKVPoolHost
from hicache.memory_pool import MHATokenToKVPool, PagedTokenToKVPoolAllocator


class Scheduler:
    def __init__(self, model, num_pages: int, page_size: int, head_num: int, head_dim: int,
                 layer_num: int):
        self.model = model
        self.device_pool = MHATokenToKVPool(num_pages, page_size, head_num, head_dim, layer_num)
        self.allocator = PagedTokenToKVPoolAllocator(num_pages)
        self.host_pool = MHATokenToKVPoolHost(self.device_pool, num_pages * 2)
        self.forward_stream = torch.cuda.Stream()
        self.controller = HiCacheController(self.device_pool, self.allocator, self.host_pool,
                                            compute_stream=self.forward_stream)

    def run_step(self, batch):
        with torch.cuda.stream(self.forward_stream):
            for req in batch.finished_reqs:
                self.allocator.free(req.device_pages)
            for req in batch.new_reqs:
                if req.host_hit_pages:
                    req.device_pages = self.controller.load(req.host_hit_pages)
            self.controller.start_loading()
            return self.model(batch.input_ids, batch.positions, self.device_pool,
                              layer_wait=self.controller.wait_layer)
