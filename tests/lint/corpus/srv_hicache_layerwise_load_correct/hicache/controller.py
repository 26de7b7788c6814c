"""Layer-wise loading in the shape of SGLang's HiCacheController.start_loading: the scheduler
merges the pending load operations, takes the next per-layer counter, and issues one copy
per layer on the load stream, recording that layer's event so attention can start on layer
0 while later layers still load. The start event is recorded on the scheduler's current
stream before entering the load-stream context and waited by the load stream, so the loads
land only after the forward kernels queued so far (which may read the reused pages)."""

import torch

from hicache.layer_events import LayerDoneCounter
from hicache.memory_pool import DeviceKVPool, HostKVPool


class HiCacheController:
    def __init__(self, size, host_size, page_size, layer_num, head_num, head_dim):
        self.layer_num = layer_num
        self.device_pool = DeviceKVPool(size, layer_num, head_num, head_dim)
        self.host_pool = HostKVPool(host_size, page_size, layer_num, head_num, head_dim)
        self.layer_done_counter = LayerDoneCounter(layer_num)
        self.load_stream = torch.cuda.Stream()
        self.load_queue = []

    def load(self, host_pages, device_pages):
        self.load_queue.append((host_pages, device_pages))

    def start_loading(self):
        if not self.load_queue:
            return -1
        host_pages, device_pages = [], []
        for h, d in self.load_queue:
            host_pages.extend(h)
            device_pages.extend(d)
        self.load_queue.clear()
        producer = self.layer_done_counter.next_producer()
        producer.start_event.record()
        with torch.cuda.stream(self.load_stream):
            producer.start_event.wait(self.load_stream)
            for layer_id in range(self.layer_num):
                self.host_pool.load_to_device_per_layer(
                    self.device_pool, host_pages, device_pages, layer_id
                )
                producer.complete(layer_id)
        return self.layer_done_counter.producer_index


class AttentionLayer:
    def __init__(self, layer_id, controller):
        self.layer_id = layer_id
        self.controller = controller

    def forward(self, q, kv_indices):
        self.controller.layer_done_counter.wait_until(self.layer_id)
        kv = self.controller.device_pool.kv_buffer[self.layer_id][:, kv_indices]
        return torch.einsum("thd,sthd->sth", q, kv)
