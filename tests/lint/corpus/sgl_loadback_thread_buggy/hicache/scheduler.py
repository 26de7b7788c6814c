"""Scheduler loop: evicts finished requests' device pages, loads matched prefixes back from
host memory, and runs the forward on its forward stream with per-layer load waits."""

import torch

from hicache.cache_controller import HiCacheController
from hicache.host_pool import MHATokenToKVPoolHost
from hicache.memory_pool import MHATokenToKVPool, PagedAllocator


class Scheduler:
    def __init__(self, model, num_pages, page_size, head_num, head_dim, layer_num):
        self.model = model
        self.device_pool = MHATokenToKVPool(num_pages, page_size, head_num, head_dim, layer_num)
        self.allocator = PagedAllocator(num_pages)
        self.host_pool = MHATokenToKVPoolHost(self.device_pool, num_pages * 4)
        self.controller = HiCacheController(self.device_pool, self.allocator, self.host_pool)
        self.forward_stream = torch.cuda.Stream()
        for layer_id, layer in enumerate(model.layers):
            layer.register_forward_pre_hook(self._make_layer_wait(layer_id))

    def _make_layer_wait(self, layer_id):
        def hook(module, args):
            self.controller.layer_done_counter.wait_until(layer_id)
        return hook

    def step(self, batch):
        with torch.cuda.stream(self.forward_stream):
            for req in batch.finished_reqs:
                self.allocator.free(req.device_pages)
            for req in batch.new_reqs:
                if req.host_hit_pages:
                    req.device_pages = self.controller.load(req.host_hit_pages, req.node_id)
            self.controller.start_loading()
            return self.model(batch.input_ids, batch.positions, self.device_pool)
