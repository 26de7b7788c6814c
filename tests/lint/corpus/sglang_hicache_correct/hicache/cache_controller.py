from __future__ import annotations

import itertools
import logging
import threading
from dataclasses import dataclass, field
from queue import Empty, Queue
from typing import List, Optional

import torch

from .memory_pool import MHATokenToKVPool, MHATokenToKVPoolHost

logger = logging.getLogger(__name__)

_op_ids = itertools.count()


@dataclass
class CacheOperation:
    host_indices: List[int]
    device_indices: List[int]
    node_id: int
    priority: int = 0
    # recorded on the scheduler stream when the operation is submitted
    ready_event: torch.cuda.Event = field(default_factory=torch.cuda.Event)
    # recorded on the transfer stream once the copies are queued
    finish_event: torch.cuda.Event = field(default_factory=torch.cuda.Event)
    id: int = field(default_factory=lambda: next(_op_ids))


class HiCacheController:
    def __init__(self, mem_pool_device: MHATokenToKVPool, mem_pool_host: MHATokenToKVPoolHost) -> None:
        self.mem_pool_device = mem_pool_device
        self.mem_pool_host = mem_pool_host
        self.device = torch.device(mem_pool_device.device)

        self.write_queue: Queue[CacheOperation] = Queue()
        self.load_queue: Queue[CacheOperation] = Queue()
        self.ack_write_queue: Queue[tuple[int, torch.cuda.Event]] = Queue()
        self.ack_load_queue: Queue[tuple[int, torch.cuda.Event]] = Queue()

        self.write_stream = torch.cuda.Stream(device=self.device)
        self.load_stream = torch.cuda.Stream(device=self.device)
        self.stop_event = threading.Event()

        self.write_thread = threading.Thread(target=self.write_thread_func_direct, daemon=True)
        self.load_thread = threading.Thread(target=self.load_thread_func_direct, daemon=True)
        self.write_thread.start()
        self.load_thread.start()

    def write(self, device_indices: List[int], priority: Optional[int] = None, node_id: int = -1) -> Optional[List[int]]:
        """Back up KV pages from device memory to host memory."""
        host_indices = self.mem_pool_host.alloc(len(device_indices) * self.mem_pool_host.page_size)
        if host_indices is None:
            return None
        op = CacheOperation(host_indices, device_indices, node_id, priority or 0)
        # the write thread orders its copies behind everything the scheduler
        # stream has queued so far (the forward that filled these pages)
        op.ready_event.record()
        self.write_queue.put(op)
        return host_indices

    def load(self, host_indices: List[int], priority: Optional[int] = None, node_id: int = -1) -> Optional[List[int]]:
        """Load KV pages from host memory back into freshly allocated device pages."""
        device_indices = self.mem_pool_device.alloc(len(host_indices) * self.mem_pool_device.page_size)
        if device_indices is None:
            return None
        op = CacheOperation(host_indices, device_indices, node_id, priority or 0)
        op.ready_event.record()
        self.load_queue.put(op)
        return device_indices

    def write_thread_func_direct(self) -> None:
        torch.cuda.set_device(self.device)
        with torch.cuda.stream(self.write_stream):
            while not self.stop_event.is_set():
                try:
                    op = self.write_queue.get(block=True, timeout=1)
                except Empty:
                    continue
                self.write_stream.wait_event(op.ready_event)
                self.mem_pool_host.backup_from_device(self.mem_pool_device, op.host_indices, op.device_indices)
                op.finish_event.record(self.write_stream)
                self.mem_pool_host.complete_io(op.host_indices)
                self.ack_write_queue.put((op.node_id, op.finish_event))

    def load_thread_func_direct(self) -> None:
        torch.cuda.set_device(self.device)
        with torch.cuda.stream(self.load_stream):
            while not self.stop_event.is_set():
                try:
                    op = self.load_queue.get(block=True, timeout=1)
                except Empty:
                    continue
                self.load_stream.wait_event(op.ready_event)
                self.mem_pool_host.load_to_device(self.mem_pool_device, op.host_indices, op.device_indices)
                op.finish_event.record(self.load_stream)
                self.ack_load_queue.put((op.node_id, op.finish_event))

    def shutdown(self) -> None:
        self.stop_event.set()
        self.write_thread.join()
        self.load_thread.join()
