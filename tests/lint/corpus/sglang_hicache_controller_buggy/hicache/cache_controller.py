from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from queue import Empty, Queue
from typing import Optional

import torch

from .device_pool import HiCacheMHATokenToKVPool
from .layer_done import LayerDoneCounter
from .memory_pool_host import MHATokenToKVPoolHost

logger = logging.getLogger(__name__)


@dataclass
class CacheOperation:
    host_indices: torch.Tensor
    device_indices: torch.Tensor  # int64, kept on the host by the allocator
    node_ids: list[int] = field(default_factory=list)
    priority: int = 0

    @staticmethod
    def merge_ops(ops: list["CacheOperation"]) -> "CacheOperation":
        if len(ops) == 1:
            return ops[0]
        return CacheOperation(
            torch.cat([op.host_indices for op in ops]),
            torch.cat([op.device_indices for op in ops]),
            [nid for op in ops for nid in op.node_ids],
            min(op.priority for op in ops))


@dataclass
class HiCacheAck:
    finish_event: torch.cuda.Event
    node_ids: list[int]


class HiCacheController:
    def __init__(self, token_to_kv_pool_allocator, mem_pool_host: MHATokenToKVPoolHost,
                 page_size: int) -> None:
        self.mem_pool_device_allocator = token_to_kv_pool_allocator
        self.mem_pool_device: HiCacheMHATokenToKVPool = token_to_kv_pool_allocator.get_kvcache()
        self.mem_pool_host = mem_pool_host
        self.page_size = page_size
        self.layer_num = self.mem_pool_device.layer_num

        self.layer_done_counter = LayerDoneCounter(self.layer_num)
        self.mem_pool_device.register_layer_transfer_counter(self.layer_done_counter)

        self.write_queue: Queue[CacheOperation] = Queue()
        self.load_queue: list[CacheOperation] = []
        self.ack_write_queue: Queue[int] = Queue()
        self.ack_load_queue: list[HiCacheAck] = []

        self.write_stream = torch.cuda.Stream()
        self.load_stream = torch.cuda.Stream()
        self.stop_event = threading.Event()
        self.write_thread = threading.Thread(target=self.write_thread_func_direct,
                                             daemon=True)
        self.write_thread.start()

    def write(self, device_indices: torch.Tensor, priority: int = 0,
              node_id: int = -1) -> Optional[torch.Tensor]:
        """Back up device pages to host memory (write-through)."""
        host_indices = self.mem_pool_host.alloc(len(device_indices))
        if host_indices is None:
            return None
        self.write_queue.put(CacheOperation(host_indices, device_indices, [node_id], priority))
        return host_indices

    def write_thread_func_direct(self) -> None:
        torch.cuda.set_stream(self.write_stream)
        while not self.stop_event.is_set():
            try:
                op = self.write_queue.get(block=True, timeout=1)
            except Empty:
                continue
            self.mem_pool_host.backup_from_device_all_layer(
                self.mem_pool_device, op.host_indices, op.device_indices)
            self.write_stream.synchronize()
            for node_id in op.node_ids:
                if node_id != 0:
                    self.ack_write_queue.put(node_id)

    def load(self, host_indices: torch.Tensor, priority: int = 0,
             node_id: int = -1) -> Optional[torch.Tensor]:
        """Load host pages back into newly allocated device pages."""
        device_indices = self.mem_pool_device_allocator.alloc(len(host_indices))
        if device_indices is None:
            return None
        self.load_queue.append(CacheOperation(host_indices, device_indices, [node_id], priority))
        return device_indices

    def start_loading(self) -> int:
        if not self.load_queue:
            return -1
        producer_id = self.layer_done_counter.update_producer()
        op = CacheOperation.merge_ops(self.load_queue)
        self.load_queue.clear()
        producer_event = self.layer_done_counter.events[producer_id]

        with torch.cuda.stream(self.load_stream):
            for i in range(self.layer_num):
                self.mem_pool_host.load_to_device_per_layer(
                    self.mem_pool_device, op.host_indices, op.device_indices, i)
                producer_event.complete(i)
        self.ack_load_queue.append(HiCacheAck(producer_event.finish_event, op.node_ids))
        return producer_id

    def shutdown(self) -> None:
        self.stop_event.set()
        self.write_thread.join()
