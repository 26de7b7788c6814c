from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from queue import Empty, Queue
from typing import List, Optional

import torch

from hicache_lb.constants import LOAD_QUEUE_POLL_TIMEOUT_S
from hicache_lb.layer_events import LayerDoneCounter, LayerLoadingEvent

logger = logging.getLogger(__name__)


@dataclass
class CacheOperation:
    host_indices: torch.Tensor
    device_indices: torch.Tensor
    node_ids: List[int] = field(default_factory=list)


@dataclass
class LoadBatch:
    op: CacheOperation
    producer_id: int
    loading_event: LayerLoadingEvent


class HiCacheLoadController:
    def __init__(self, token_to_kv_pool_allocator, mem_pool_host, device_index: int = 0):
        self.mem_pool_device_allocator = token_to_kv_pool_allocator
        self.mem_pool_device = token_to_kv_pool_allocator.get_kvcache()
        self.mem_pool_host = mem_pool_host
        self.layer_num = self.mem_pool_device.layer_num
        self.device_index = device_index
        self.layer_done_counter = LayerDoneCounter(self.layer_num)
        self.mem_pool_device.register_layer_transfer_counter(self.layer_done_counter)

        self.load_stream = torch.Stream(device=torch.device("cuda", device_index))
        self.pending_loads: List[CacheOperation] = []
        self.load_queue: Queue[LoadBatch] = Queue()
        self.ack_load_queue: Queue[List[int]] = Queue()
        self.stop_event = threading.Event()
        self.load_thread = threading.Thread(target=self.load_thread_func_layer_by_layer, daemon=True)
        self.load_thread.start()

    def load(self, host_indices: torch.Tensor, node_id: int = -1) -> Optional[torch.Tensor]:
        # device slots come back from the allocator's free list as a host tensor
        device_indices = self.mem_pool_device_allocator.alloc(len(host_indices))
        if device_indices is None:
            return None
        self.pending_loads.append(CacheOperation(host_indices, device_indices, [node_id]))
        return device_indices

    def start_loading(self) -> int:
        """Called on the scheduler thread right before the forward batch is launched."""
        if not self.pending_loads:
            return -1
        ops, self.pending_loads = self.pending_loads, []
        op = CacheOperation(
            torch.cat([o.host_indices for o in ops]),
            torch.cat([o.device_indices for o in ops]),
            [nid for o in ops for nid in o.node_ids],
        )
        producer_id = self.layer_done_counter.update_producer()
        loading_event = self.layer_done_counter.events[producer_id]
        loading_event.start_event.record(self.load_stream)
        self.load_queue.put(LoadBatch(op, producer_id, loading_event))
        return producer_id

    def load_thread_func_layer_by_layer(self) -> None:
        torch.accelerator.set_device_index(self.device_index)
        torch.accelerator.set_stream(self.load_stream)
        while not self.stop_event.is_set():
            try:
                batch = self.load_queue.get(timeout=LOAD_QUEUE_POLL_TIMEOUT_S)
            except Empty:
                continue
            self.load_stream.wait_event(batch.loading_event.start_event)
            for layer_id in range(self.layer_num):
                self.mem_pool_host.load_to_device_per_layer(
                    self.mem_pool_device,
                    batch.op.host_indices,
                    batch.op.device_indices,
                    layer_id,
                )
                batch.loading_event.complete(layer_id)
            self.ack_load_queue.put(batch.op.node_ids)

    def shutdown(self) -> None:
        self.stop_event.set()
        self.load_thread.join()
