"""The scheduler loop: runs the forward pass on its forward stream and asks the controller to
back up the pages the step just filled."""

import torch

from hicache.controller import HiCacheController
from hicache.host_pool import DeviceKVPool, HostKVPool


class Scheduler:
    def __init__(self, model, size, page_size, layer_num, head_num, head_dim):
        self.model = model
        self.device_pool = DeviceKVPool(size, layer_num, head_num, head_dim)
        self.host_pool = HostKVPool(self.device_pool, size * 2, page_size, head_num, head_dim)
        self.controller = HiCacheController(self.device_pool, self.host_pool)
        self.forward_stream = torch.cuda.Stream()
        self.backed_up = {}

    def step(self, batch):
        with torch.cuda.stream(self.forward_stream):
            self.model.forward(batch, self.device_pool)
            for node_id, device_pages in batch.finished_nodes():
                self.backed_up[node_id] = self.controller.write(device_pages, node_id)

    def poll_acks(self):
        while not self.controller.ack_write_queue.empty():
            node_id = self.controller.ack_write_queue.get()
            self.backed_up.pop(node_id, None)
