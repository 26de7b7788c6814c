"""Write-through controller in the shape of SGLang's early HiCacheController with the
"direct" IO path: the scheduler queues backup operations by priority and a daemon write
thread, which makes the write stream its current stream once at start-up, copies each
operation's pages to the host pool and acknowledges the radix-tree node when the copy is done.
Each operation carries an event recorded on the scheduler's stream when it is queued; the
write thread makes its (current) write stream wait on it before copying."""

import logging
import threading
from queue import Empty, PriorityQueue, Queue
from typing import List, Optional

import torch

from hicache.memory_pool_host import MHATokenToKVPoolHost

logger = logging.getLogger(__name__)


class CacheOperation:
    counter = 0

    def __init__(self, host_pages: List[int], device_pages: List[int], node_id: int,
                 priority: Optional[int] = None):
        self.host_pages = host_pages
        self.device_pages = device_pages
        self.node_id = node_id
        self.id = CacheOperation.counter
        CacheOperation.counter += 1
        self.priority = priority if priority is not None else self.id
        # marks the point in the scheduler's stream after which the pages hold their KV
        self.ready_event = torch.cuda.Event()

    def __lt__(self, other: "CacheOperation") -> bool:
        return self.priority < other.priority


class HiCacheController:
    def __init__(self, mem_pool_host: MHATokenToKVPoolHost, write_policy: str = "write_through"):
        self.mem_pool_host = mem_pool_host
        self.write_policy = write_policy
        self.write_queue: "PriorityQueue[CacheOperation]" = PriorityQueue()
        self.ack_write_queue: Queue = Queue()
        self.write_stream = torch.cuda.Stream()
        self.stop_event = threading.Event()
        self.write_thread = threading.Thread(target=self.write_thread_func_direct, daemon=True)
        self.write_thread.start()

    def write(self, device_pages: List[int], priority: Optional[int] = None,
              node_id: int = 0) -> Optional[List[int]]:
        host_pages = self.mem_pool_host.alloc(len(device_pages))
        if host_pages is None:
            return None
        self.mem_pool_host.protect_write(host_pages)
        operation = CacheOperation(host_pages, device_pages, node_id, priority)
        operation.ready_event.record()
        self.write_queue.put(operation)
        return host_pages

    def write_thread_func_direct(self) -> None:
        torch.cuda.set_stream(self.write_stream)
        while not self.stop_event.is_set():
            try:
                operation = self.write_queue.get(block=True, timeout=1)
            except Empty:
                continue
            torch.cuda.current_stream().wait_event(operation.ready_event)
            self.mem_pool_host.write_page_all_layers(operation.host_pages, operation.device_pages)
            self.write_stream.synchronize()
            self.mem_pool_host.complete_io(operation.host_pages)
            if operation.node_id != 0:
                self.ack_write_queue.put(operation.node_id)

    def shutdown(self) -> None:
        self.stop_event.set()
        self.write_thread.join(timeout=5)
