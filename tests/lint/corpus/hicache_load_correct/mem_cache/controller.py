from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import List, Optional

import torch

from mem_cache.device_pool import MHATokenToKVPool, TokenToKVPoolAllocator
from mem_cache.host_pool import MHATokenToKVPoolHost
from mem_cache.layer_events import LayerDoneCounter

logger = logging.getLogger(__name__)


@dataclass
class LoadOperation:
    host_indices: torch.Tensor
    device_indices: torch.Tensor
    node_ids: List[int] = field(default_factory=list)


@dataclass
class LoadAck:
    start_event: torch.cuda.Event
    finish_event: torch.cuda.Event
    node_ids: List[int]


class HiCacheController:
    def __init__(
        self,
        allocator: TokenToKVPoolAllocator,
        mem_pool_device: MHATokenToKVPool,
        mem_pool_host: MHATokenToKVPoolHost,
    ):
        self.mem_pool_device_allocator = allocator
        self.mem_pool_device = mem_pool_device
        self.mem_pool_host = mem_pool_host
        self.layer_num = mem_pool_device.layer_num
        self.layer_done_counter = LayerDoneCounter(self.layer_num)
        mem_pool_device.register_layer_transfer_counter(self.layer_done_counter)
        self.load_queue: List[LoadOperation] = []
        self.ack_load_queue: List[LoadAck] = []
        self.load_stream = torch.cuda.Stream()

    def load(self, host_indices: torch.Tensor, node_id: int = -1) -> Optional[torch.Tensor]:
        device_indices = self.mem_pool_device_allocator.alloc(len(host_indices))
        if device_indices is None:
            return None
        self.load_queue.append(LoadOperation(host_indices, device_indices, [node_id]))
        return device_indices

    def _merged_load_op(self) -> LoadOperation:
        if len(self.load_queue) == 1:
            return self.load_queue[0]
        return LoadOperation(
            torch.cat([op.host_indices for op in self.load_queue]),
            torch.cat([op.device_indices for op in self.load_queue]),
            [nid for op in self.load_queue for nid in op.node_ids],
        )

    def start_loading(self) -> int:
        if not self.load_queue:
            return -1
        producer_id = self.layer_done_counter.update_producer()
        op = self._merged_load_op()
        self.load_queue.clear()

        producer_event = self.layer_done_counter.events[producer_id]
        producer_event.start_event.record()
        with torch.cuda.stream(self.load_stream):
            self.layer_done_counter.previous_finish_event().wait(self.load_stream)
            producer_event.start_event.wait(self.load_stream)
            for i in range(self.layer_num):
                self.mem_pool_host.load_to_device_per_layer(
                    self.mem_pool_device, op.host_indices, op.device_indices, i
                )
                producer_event.complete(i)
        self.ack_load_queue.append(
            LoadAck(producer_event.start_event, producer_event.finish_event, op.node_ids)
        )
        return producer_id

    def finished_loads(self) -> List[int]:
        done: List[int] = []
        while self.ack_load_queue and self.ack_load_queue[0].finish_event.query():
            done.extend(self.ack_load_queue.pop(0).node_ids)
        return done
