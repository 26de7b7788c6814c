from __future__ import annotations

import logging
from typing import Any, List, Optional, Tuple

import torch

from .layer_events import LayerDoneCounter
from .memory_pool import TokenToKVPoolAllocator
from .memory_pool_host import MHATokenToKVPoolHost
from .utils import device_module

logger = logging.getLogger(__name__)


class CacheOperation:
    def __init__(self, host_indices: torch.Tensor, device_indices: torch.Tensor, node_id: int):
        self.host_indices = host_indices
        self.device_indices = device_indices
        self.node_ids = [node_id]

    @staticmethod
    def merge_ops(ops: List["CacheOperation"]) -> "CacheOperation":
        if len(ops) == 1:
            return ops[0]
        merged = CacheOperation(
            torch.cat([op.host_indices for op in ops]),
            torch.cat([op.device_indices for op in ops]),
            -1,
        )
        merged.node_ids = [nid for op in ops for nid in op.node_ids]
        return merged


class HiCacheController:
    def __init__(
        self,
        token_to_kv_pool_allocator: TokenToKVPoolAllocator,
        mem_pool_host: MHATokenToKVPoolHost,
        page_size: int,
        enable_layerwise_load: bool = True,
    ):
        self.mem_pool_device_allocator = token_to_kv_pool_allocator
        self.mem_pool_device = token_to_kv_pool_allocator.get_kvcache()
        self.mem_pool_host = mem_pool_host
        self.page_size = page_size
        self.enable_layerwise_load = enable_layerwise_load
        self.layer_num = self.mem_pool_device.layer_num

        self.load_stream = device_module.Stream()
        self.load_start_event = device_module.Event()
        self.layer_done_counter = LayerDoneCounter(self.layer_num)
        self.mem_pool_device.register_layer_transfer_counter(self.layer_done_counter)

        self.load_queue: List[CacheOperation] = []
        self.ack_load_queue: List[Tuple[Any, List[int]]] = []

    def load(self, host_indices: torch.Tensor, node_id: int = -1) -> Optional[torch.Tensor]:
        """Reserve device slots and queue a host -> device load."""
        device_indices = self.mem_pool_device_allocator.alloc(len(host_indices))
        if device_indices is None:
            return None
        self.load_queue.append(CacheOperation(host_indices, device_indices, node_id))
        self.load_start_event.record(device_module.current_stream())
        return device_indices

    def start_loading(self) -> int:
        if len(self.load_queue) == 0:
            return -1
        producer_id = self.layer_done_counter.update_producer()
        op = CacheOperation.merge_ops(self.load_queue)
        self.load_queue.clear()
        producer_event = self.layer_done_counter.events[producer_id]

        with device_module.stream(self.load_stream):
            self.load_stream.wait_event(self.load_start_event)
            if self.enable_layerwise_load:
                for i in range(self.layer_num):
                    self.mem_pool_host.load_to_device_per_layer(
                        self.mem_pool_device, op.host_indices, op.device_indices, i
                    )
                    producer_event.complete(i)
            else:
                self.mem_pool_host.load_to_device_all_layer(
                    self.mem_pool_device, op.host_indices, op.device_indices
                )
                producer_event.complete_all()
        self.ack_load_queue.append((producer_event.finish_event, op.node_ids))
        return producer_id

    def poll_load_acks(self) -> List[int]:
        finished: List[int] = []
        while self.ack_load_queue and self.ack_load_queue[0][0].query():
            _, node_ids = self.ack_load_queue.pop(0)
            finished.extend(node_ids)
        return finished
