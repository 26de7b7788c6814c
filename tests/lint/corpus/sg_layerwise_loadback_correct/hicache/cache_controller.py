"""Load-back half of the HiCache controller.

``load`` only reserves device pages; ``start_loading`` is called by the
scheduler right before the forward and streams the queued pages in layer by
layer so attention on layer ``i`` can start once layer ``i`` has landed.
"""

from typing import List, NamedTuple, Optional

import torch

from .layer_events import LayerDoneCounter
from .memory_pool import MHATokenToKVPool, MHATokenToKVPoolHost, PagedAllocator


class CacheOperation:
    def __init__(self, host_pages: torch.Tensor, device_pages: torch.Tensor, node_ids: List[int]):
        self.host_pages = host_pages
        self.device_pages = device_pages
        self.node_ids = node_ids

    @staticmethod
    def merge_ops(ops: List["CacheOperation"]) -> "CacheOperation":
        if len(ops) == 1:
            return ops[0]
        return CacheOperation(
            torch.cat([op.host_pages for op in ops]),
            torch.cat([op.device_pages for op in ops]),
            [nid for op in ops for nid in op.node_ids],
        )


class HiCacheAck(NamedTuple):
    start_event: torch.cuda.Event
    finish_event: torch.cuda.Event
    node_ids: List[int]


class HiCacheController:
    def __init__(self, allocator: PagedAllocator, device_pool: MHATokenToKVPool, host_pool: MHATokenToKVPoolHost):
        self.allocator = allocator
        self.device_pool = device_pool
        self.host_pool = host_pool
        self.layer_num = device_pool.layer_num
        self.layer_done_counter = LayerDoneCounter(self.layer_num)
        device_pool.register_layer_transfer_counter(self.layer_done_counter)
        self.load_stream = torch.cuda.Stream()
        self.load_queue: List[CacheOperation] = []
        self.ack_load_queue: List[HiCacheAck] = []

    def load(self, host_pages: torch.Tensor, node_id: int) -> Optional[torch.Tensor]:
        device_pages = self.allocator.alloc(len(host_pages))
        if device_pages is None:
            return None
        self.load_queue.append(CacheOperation(host_pages, device_pages, [node_id]))
        return device_pages

    def start_loading(self) -> int:
        if not self.load_queue:
            return -1
        producer_id = self.layer_done_counter.update_producer()
        op = CacheOperation.merge_ops(self.load_queue)
        self.load_queue.clear()
        producer_event = self.layer_done_counter.events[producer_id]

        producer_event.begin(self.load_stream)
        with torch.cuda.stream(self.load_stream):
            for layer_id in range(self.layer_num):
                self.host_pool.load_to_device_per_layer(
                    self.device_pool, op.host_pages, op.device_pages, layer_id
                )
                producer_event.complete(layer_id)

        self.ack_load_queue.append(
            HiCacheAck(producer_event.start_event, producer_event.finish_event, op.node_ids)
        )
        return producer_id
