import logging
from dataclasses import dataclass
from typing import List

import torch

from sgl_hicache.layer_events import LayerDoneCounter
from sgl_hicache.memory_pool_host import MHATokenToKVPoolHost
from sgl_hicache.stream_utils import merge_indices, order_after_compute

logger = logging.getLogger(__name__)


@dataclass
class LoadOperation:
    host_start: int
    device_start: int
    num_tokens: int
    node_id: int


class HiCacheLoadController:
    def __init__(self, mem_pool_device, mem_pool_host: MHATokenToKVPoolHost, device: str = "cuda"):
        self.mem_pool_device = mem_pool_device
        self.mem_pool_host = mem_pool_host
        self.device_module = torch.get_device_module(device)
        self.load_stream = self.device_module.Stream()
        self.layer_num = mem_pool_host.layer_num
        self.layer_done_counter = LayerDoneCounter(self.device_module, self.layer_num)
        self.load_queue: List[LoadOperation] = []
        self.ack_load_queue: List[List[int]] = []

    def load(self, host_start: int, device_start: int, num_tokens: int, node_id: int):
        self.load_queue.append(LoadOperation(host_start, device_start, num_tokens, node_id))

    def start_loading(self) -> int:
        if not self.load_queue:
            return -1
        producer_id = self.layer_done_counter.update_producer()
        spans, node_ids = merge_indices(self.load_queue)
        self.load_queue.clear()
        producer_event = self.layer_done_counter.events[producer_id]

        order_after_compute(self.device_module, self.load_stream)
        with self.device_module.stream(self.load_stream):
            producer_event.start_event.record()
            for i in range(self.layer_num):
                self.mem_pool_host.load_to_device_per_layer(self.mem_pool_device, spans, i)
                producer_event.complete(i)
        self.ack_load_queue.append(node_ids)
        logger.debug("issued layer-wise load of %d spans", len(spans))
        return producer_id
