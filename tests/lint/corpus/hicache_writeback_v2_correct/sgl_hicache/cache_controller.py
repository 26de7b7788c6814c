from __future__ import annotations

import logging
import threading
from queue import Empty, PriorityQueue, Queue
from typing import List, Optional

import torch

from sgl_hicache.constants import (
    IO_BACKEND_DIRECT,
    LOAD_QUEUE_POLL_S,
    MAX_MERGED_WRITE_OPS,
    WRITE_QUEUE_POLL_S,
)
from sgl_hicache.memory_pool_host import MHATokenToKVPoolHost

logger = logging.getLogger(__name__)


class CacheOperation:
    counter = 0

    def __init__(
        self,
        host_indices: torch.Tensor,
        device_indices: torch.Tensor,
        node_id: int,
        priority: Optional[int] = None,
        ready_event: Optional[torch.cuda.Event] = None,
    ):
        self.host_indices = host_indices
        self.device_indices = device_indices
        self.node_ids = [node_id]
        self.ready_events: List[torch.cuda.Event] = [ready_event] if ready_event else []
        self.id = CacheOperation.counter
        CacheOperation.counter += 1
        self.priority = priority if priority is not None else self.id

    def merge(self, other: "CacheOperation") -> None:
        self.host_indices = torch.cat([self.host_indices, other.host_indices])
        self.device_indices = torch.cat([self.device_indices, other.device_indices])
        self.node_ids.extend(other.node_ids)
        self.ready_events.extend(other.ready_events)
        self.priority = min(self.priority, other.priority)

    def __lt__(self, other: "CacheOperation") -> bool:
        return self.priority < other.priority


class HiCacheController:
    def __init__(self, mem_pool_device, mem_pool_host: MHATokenToKVPoolHost, page_size: int):
        self.mem_pool_device = mem_pool_device
        self.mem_pool_host = mem_pool_host
        self.page_size = page_size
        self.io_backend = IO_BACKEND_DIRECT

        self.write_queue: PriorityQueue = PriorityQueue()
        self.load_queue: PriorityQueue = PriorityQueue()
        self.ack_write_queue: Queue = Queue()
        self.ack_load_queue: Queue = Queue()

        self.write_stream = torch.cuda.Stream()
        self.load_stream = torch.cuda.Stream()
        self.stop_event = threading.Event()

        self.write_thread = threading.Thread(target=self.write_thread_func_direct, daemon=True)
        self.load_thread = threading.Thread(target=self.load_thread_func_direct, daemon=True)
        self.write_thread.start()
        self.load_thread.start()

    def write(self, device_indices: torch.Tensor, priority: Optional[int] = None, node_id: int = -1):
        host_indices = self.mem_pool_host.alloc(len(device_indices))
        if host_indices is None:
            return None
        ready = torch.cuda.Event()
        ready.record()
        self.write_queue.put(CacheOperation(host_indices, device_indices, node_id, priority, ready))
        return host_indices

    def load(self, host_indices: torch.Tensor, device_indices: torch.Tensor, node_id: int = -1):
        ready = torch.cuda.Event()
        ready.record()
        self.load_queue.put(CacheOperation(host_indices, device_indices, node_id, None, ready))
        return device_indices

    def _drain_writes(self, op: CacheOperation) -> CacheOperation:
        for _ in range(MAX_MERGED_WRITE_OPS):
            try:
                op.merge(self.write_queue.get_nowait())
            except Empty:
                break
        return op

    def write_thread_func_direct(self) -> None:
        while not self.stop_event.is_set():
            try:
                op = self.write_queue.get(block=True, timeout=WRITE_QUEUE_POLL_S)
            except Empty:
                continue
            op = self._drain_writes(op)
            with torch.cuda.stream(self.write_stream):
                for ev in op.ready_events:
                    self.write_stream.wait_event(ev)
                self.mem_pool_host.backup_from_device_all_layer(
                    self.mem_pool_device, op.host_indices, op.device_indices, self.io_backend
                )
                done = torch.cuda.Event()
                done.record(self.write_stream)
            self.ack_write_queue.put((done, op.node_ids))

    def load_thread_func_direct(self) -> None:
        while not self.stop_event.is_set():
            try:
                op = self.load_queue.get(block=True, timeout=LOAD_QUEUE_POLL_S)
            except Empty:
                continue
            with torch.cuda.stream(self.load_stream):
                for ev in op.ready_events:
                    self.load_stream.wait_event(ev)
                self.mem_pool_host.load_to_device_all_layer(
                    self.mem_pool_device, op.host_indices, op.device_indices, self.io_backend
                )
                done = torch.cuda.Event()
                done.record(self.load_stream)
            self.ack_load_queue.put((done, op.node_ids))

    def shutdown(self) -> None:
        self.stop_event.set()
        self.write_thread.join()
        self.load_thread.join()
