from __future__ import annotations

import logging
from typing import List, NamedTuple, Optional

from .config import HiCacheConfig
from .memory_pool_host import MHATokenToKVPoolHost
from .utils import get_device_module

logger = logging.getLogger(__name__)

device_module = get_device_module()


class LayerLoadingEvent:
    def __init__(self, num_layers: int):
        self.load_events = [device_module.Event() for _ in range(num_layers)]
        self.start_event = device_module.Event()

    def complete(self, layer_index: int):
        self.load_events[layer_index].record()

    def wait(self, layer_index: int):
        device_module.current_stream().wait_event(self.load_events[layer_index])

    @property
    def finish_event(self):
        return self.load_events[-1]


class CacheOperation:
    counter = 0

    def __init__(
        self,
        host_pages: List[int],
        device_pages: List[int],
        node_id: int,
        priority: Optional[int] = None,
    ):
        self.host_pages = host_pages
        self.device_pages = device_pages
        self.node_ids = [node_id]
        self.id = CacheOperation.counter
        CacheOperation.counter += 1
        self.priority = priority if priority is not None else self.id

    @staticmethod
    def merge_ops(ops: List["CacheOperation"]) -> "CacheOperation":
        assert len(ops) > 0
        if len(ops) == 1:
            return ops[0]
        merged = CacheOperation(
            [p for op in ops for p in op.host_pages],
            [p for op in ops for p in op.device_pages],
            -1,
            min(op.priority for op in ops),
        )
        merged.node_ids = [n for op in ops for n in op.node_ids]
        return merged


class HiCacheAck(NamedTuple):
    start_event: object
    finish_event: object
    node_ids: List[int]


class HiCacheController:
    def __init__(
        self,
        token_to_kv_pool_allocator,
        mem_pool_host: MHATokenToKVPoolHost,
        config: HiCacheConfig,
    ):
        self.mem_pool_device_allocator = token_to_kv_pool_allocator
        self.mem_pool_device = token_to_kv_pool_allocator.get_kvcache()
        self.mem_pool_host = mem_pool_host
        self.write_policy = config.write_policy
        self.io_backend = config.io_backend
        self.page_size = config.page_size
        self.layer_num = self.mem_pool_device.layer_num

        self.write_queue: List[CacheOperation] = []
        self.load_queue: List[CacheOperation] = []
        self.ack_write_queue: List[HiCacheAck] = []
        self.ack_load_queue: List[HiCacheAck] = []

        self.write_stream = device_module.Stream()
        self.load_stream = device_module.Stream()
        self.layer_loading_event: Optional[LayerLoadingEvent] = None

    def write(
        self, device_pages: List[int], priority: Optional[int] = None, node_id: int = -1
    ) -> Optional[List[int]]:
        """Back up KV pages from device memory to host memory."""
        host_pages = self.mem_pool_host.alloc_pages(len(device_pages))
        if host_pages is None:
            return None
        self.write_queue.append(CacheOperation(host_pages, device_pages, node_id, priority))
        self.start_writing()
        return host_pages

    def start_writing(self) -> None:
        if not self.write_queue:
            return
        op = CacheOperation.merge_ops(self.write_queue)
        self.write_queue.clear()

        start_event = device_module.Event()
        finish_event = device_module.Event()

        start_event.record()
        with device_module.stream(self.write_stream):
            start_event.wait(self.write_stream)
            self.mem_pool_host.backup_from_device_all_layer(
                self.mem_pool_device, op.host_pages, op.device_pages, self.io_backend
            )
            finish_event.record()

        self.ack_write_queue.append(HiCacheAck(start_event, finish_event, op.node_ids))

    def writing_check(self) -> List[int]:
        finished: List[int] = []
        while self.ack_write_queue and self.ack_write_queue[0].finish_event.query():
            finished.extend(self.ack_write_queue.pop(0).node_ids)
        return finished

    def load(
        self, host_pages: List[int], priority: Optional[int] = None, node_id: int = -1
    ) -> Optional[List[int]]:
        """Load KV pages from host memory back to device memory."""
        device_pages = self.mem_pool_device_allocator.alloc_pages(len(host_pages))
        if device_pages is None:
            return None
        self.load_queue.append(CacheOperation(host_pages, device_pages, node_id, priority))
        return device_pages

    def start_loading(self) -> None:
        if not self.load_queue:
            return
        op = CacheOperation.merge_ops(self.load_queue)
        self.load_queue.clear()

        layer_event = LayerLoadingEvent(self.layer_num)
        layer_event.start_event.record()
        with device_module.stream(self.load_stream):
            layer_event.start_event.wait(self.load_stream)
            for i in range(self.layer_num):
                self.mem_pool_host.load_to_device_per_layer(
                    self.mem_pool_device, op.host_pages, op.device_pages, i, self.io_backend
                )
                layer_event.complete(i)

        self.layer_loading_event = layer_event
        self.ack_load_queue.append(
            HiCacheAck(layer_event.start_event, layer_event.finish_event, op.node_ids)
        )
