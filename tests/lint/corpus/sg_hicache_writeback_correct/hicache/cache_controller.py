"""HiCacheController: the write-back path from device pages to pinned host pages.

The scheduler enqueues CacheOperations; a controller thread drains them on a
dedicated write stream and publishes a HiCacheAck per operation.
"""

import threading
from queue import Empty, Queue
from typing import List, NamedTuple, Optional

import torch

from .config import QUEUE_POLL_TIMEOUT_S
from .memory_pool import MHATokenToKVPool, MHATokenToKVPoolHost


class CacheOperation:
    counter = 0

    def __init__(self, host_pages: torch.Tensor, device_pages: torch.Tensor, node_id: int):
        self.host_pages = host_pages
        self.device_pages = device_pages
        self.node_ids: List[int] = [node_id]
        # fences the controller thread behind the forward that filled the pages
        self.ready_event = torch.cuda.Event()
        self.id = CacheOperation.counter
        CacheOperation.counter += 1


class HiCacheAck(NamedTuple):
    finish_event: torch.cuda.Event
    node_ids: List[int]


class HiCacheController:
    def __init__(self, device_pool: MHATokenToKVPool, host_pool: MHATokenToKVPoolHost):
        self.device_pool = device_pool
        self.host_pool = host_pool
        self.write_stream = torch.cuda.Stream()
        self.write_queue: "Queue[CacheOperation]" = Queue()
        self.ack_write_queue: "Queue[HiCacheAck]" = Queue()
        self.stop_event = threading.Event()
        self.write_thread = threading.Thread(target=self.write_thread_func, daemon=True)
        self.write_thread.start()

    def write(self, device_pages: torch.Tensor, node_id: int = -1) -> Optional[torch.Tensor]:
        """Schedule a back-up of ``device_pages``; returns the reserved host pages."""
        host_pages = self.host_pool.alloc(len(device_pages))
        if host_pages is None:
            return None
        op = CacheOperation(host_pages, device_pages, node_id)
        op.ready_event.record()
        self.write_queue.put(op)
        return host_pages

    def write_thread_func(self) -> None:
        with torch.cuda.stream(self.write_stream):
            while not self.stop_event.is_set():
                try:
                    op = self.write_queue.get(block=True, timeout=QUEUE_POLL_TIMEOUT_S)
                except Empty:
                    continue
                self.write_stream.wait_event(op.ready_event)
                self.host_pool.backup_from_device_all_layer(
                    self.device_pool, op.host_pages, op.device_pages
                )
                finish_event = torch.cuda.Event()
                finish_event.record(self.write_stream)
                self.ack_write_queue.put(HiCacheAck(finish_event, op.node_ids))

    def shutdown(self) -> None:
        self.stop_event.set()
        self.write_thread.join()
