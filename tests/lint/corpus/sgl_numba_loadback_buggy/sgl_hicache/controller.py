import logging
import threading
from dataclasses import dataclass, field
from queue import Empty, Queue
from typing import List

from numba import cuda

from .constants import (
    LOAD_MODE_ALL_LAYER,
    LOAD_MODE_LAYER_FIRST,
    LOAD_QUEUE_TIMEOUT_S,
    SUPPORTED_LOAD_MODES,
)
from .device_pool import NumbaMHATokenToKVPool, PageAllocator
from .host_pool import NumbaMHATokenToKVPoolHost

logger = logging.getLogger(__name__)


class LayerDoneCounter:
    def __init__(self, num_layers: int):
        self.events = [cuda.event(timing=False) for _ in range(num_layers)]

    def complete(self, layer_id: int, stream) -> None:
        self.events[layer_id].record(stream=stream)

    def wait_until(self, layer_id: int, stream) -> None:
        self.events[layer_id].wait(stream=stream)


@dataclass
class LoadOperation:
    host_pages: List[int]
    device_pages: List[int]
    node_ids: List[int]
    start_event: object = field(default_factory=lambda: cuda.event(timing=False))


class HiCacheController:
    def __init__(self, allocator: PageAllocator, device_pool: NumbaMHATokenToKVPool,
                 host_pool: NumbaMHATokenToKVPoolHost, load_mode: str = LOAD_MODE_LAYER_FIRST):
        if load_mode not in SUPPORTED_LOAD_MODES:
            raise ValueError(f"Unsupported load mode {load_mode!r}")
        self.allocator = allocator
        self.device_pool = device_pool
        self.host_pool = host_pool
        self.load_mode = load_mode
        self.load_stream = cuda.stream()
        self.layer_done_counter = LayerDoneCounter(device_pool.layer_num)
        device_pool.register_layer_transfer_counter(self.layer_done_counter)
        self.pending: List[LoadOperation] = []
        self.load_queue: "Queue[LoadOperation]" = Queue()
        self.ack_load_queue: "Queue[List[int]]" = Queue()
        self.stop_event = threading.Event()
        self.load_thread = threading.Thread(target=self.load_thread_func, daemon=True)
        self.load_thread.start()

    def load(self, host_pages: List[int], node_id: int = -1):
        device_pages = self.allocator.alloc(len(host_pages))
        if device_pages is None:
            return None
        self.pending.append(LoadOperation(host_pages, device_pages, [node_id]))
        return device_pages

    def evict_device(self, device_pages: List[int]) -> int:
        self.allocator.free(device_pages)
        return len(device_pages)

    def start_loading(self) -> None:
        if not self.pending:
            return
        op = LoadOperation(
            [p for o in self.pending for p in o.host_pages],
            [p for o in self.pending for p in o.device_pages],
            [n for o in self.pending for n in o.node_ids],
        )
        self.pending.clear()
        op.start_event.record(stream=self.device_pool.forward_stream)
        self.load_queue.put(op)

    def load_thread_func(self) -> None:
        while not self.stop_event.is_set():
            try:
                op = self.load_queue.get(timeout=LOAD_QUEUE_TIMEOUT_S)
            except Empty:
                continue
            if self.load_mode == LOAD_MODE_LAYER_FIRST:
                op.start_event.wait(stream=self.load_stream)
                for layer_id in range(self.device_pool.layer_num):
                    self.host_pool.load_to_device_per_layer(
                        self.device_pool, op.host_pages, op.device_pages, layer_id, self.load_stream
                    )
                    self.layer_done_counter.complete(layer_id, self.load_stream)
            elif self.load_mode == LOAD_MODE_ALL_LAYER:
                self.host_pool.load_to_device_all_layer(
                    self.device_pool, op.host_pages, op.device_pages, self.load_stream
                )
                for layer_id in range(self.device_pool.layer_num):
                    self.layer_done_counter.complete(layer_id, self.load_stream)
            self.load_stream.synchronize()
            self.ack_load_queue.put(op.node_ids)
