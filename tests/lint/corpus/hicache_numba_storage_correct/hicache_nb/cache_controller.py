from __future__ import annotations

import logging
import threading
from queue import Empty, Queue
from typing import List, Optional

import torch
from numba import cuda

from .hicache_storage import HiCacheFile
from .memory_pool_host import MHATokenToKVPoolHost

logger = logging.getLogger(__name__)


def _drain(q: Queue, first, limit: int) -> list:
    items = [first]
    while len(items) < limit:
        try:
            items.append(q.get_nowait())
        except Empty:
            break
    return items


class CacheOperation:
    counter = 0

    def __init__(self, host_pages: List[int], device_pages: List[int], hash_values: List[str], node_id: int):
        self.host_pages = host_pages
        self.device_pages = device_pages
        self.hash_values = hash_values
        self.node_ids = [node_id]
        self.ready_events: list = []
        self.finish_events: list = []
        self.id = CacheOperation.counter
        CacheOperation.counter += 1

    @staticmethod
    def merge_ops(ops: List[CacheOperation]) -> CacheOperation:
        assert len(ops) > 0
        if len(ops) == 1:
            return ops[0]
        merged = CacheOperation(
            [p for op in ops for p in op.host_pages],
            [p for op in ops for p in op.device_pages],
            [h for op in ops for h in op.hash_values],
            -1,
        )
        merged.node_ids = [n for op in ops for n in op.node_ids]
        merged.ready_events = [e for op in ops for e in op.ready_events]
        merged.finish_events = [e for op in ops for e in op.finish_events]
        return merged


class HiCacheController:
    def __init__(
        self,
        mem_pool_device,
        mem_pool_host: MHATokenToKVPoolHost,
        storage_backend: Optional[HiCacheFile] = None,
        max_batch_ops: int = 32,
    ):
        self.mem_pool_device = mem_pool_device
        self.mem_pool_host = mem_pool_host
        self.storage_backend = storage_backend
        self.max_batch_ops = max_batch_ops

        self.write_stream = cuda.stream()
        self.load_stream = cuda.stream()
        self.write_queue, self.load_queue, self.backup_queue = Queue(), Queue(), Queue()
        self.ack_write_queue, self.ack_load_queue = Queue(), Queue()
        self.stop_event = threading.Event()

        self.threads = [
            threading.Thread(target=self.write_thread_func, daemon=True),
            threading.Thread(target=self.load_thread_func, daemon=True),
        ]
        if storage_backend is not None:
            self.threads.append(threading.Thread(target=self.backup_thread_func, daemon=True))
        for t in self.threads:
            t.start()

    def _new_op(self, host_pages, device_pages, hash_values, node_id) -> CacheOperation:
        op = CacheOperation(host_pages, device_pages, hash_values, node_id)
        ready = cuda.event(timing=False)
        ready.record(stream=cuda.external_stream(torch.cuda.current_stream().cuda_stream))
        op.ready_events.append(ready)
        return op

    def write(self, device_pages: List[int], hash_values: List[str], node_id: int = -1):
        host_pages = self.mem_pool_host.alloc_pages(len(device_pages))
        if host_pages is None:
            return None
        self.write_queue.put(self._new_op(host_pages, device_pages, hash_values, node_id))
        return host_pages

    def load(self, host_pages: List[int], device_pages: List[int], node_id: int = -1) -> None:
        self.load_queue.put(self._new_op(host_pages, device_pages, [], node_id))

    def write_thread_func(self):
        while not self.stop_event.is_set():
            try:
                op = self.write_queue.get(timeout=1)
            except Empty:
                continue
            for ready in op.ready_events:
                ready.wait(stream=self.write_stream)
            self.mem_pool_host.backup_from_device_all_layer(
                self.mem_pool_device, op.host_pages, op.device_pages, self.write_stream
            )
            finish_event = cuda.event(timing=False)
            finish_event.record(stream=self.write_stream)
            op.finish_events.append(finish_event)
            self.ack_write_queue.put(op)
            if self.storage_backend is not None:
                self.backup_queue.put(op)

    def load_thread_func(self):
        while not self.stop_event.is_set():
            try:
                first = self.load_queue.get(timeout=1)
            except Empty:
                continue
            op = CacheOperation.merge_ops(_drain(self.load_queue, first, self.max_batch_ops))
            for ready in op.ready_events:
                ready.wait(stream=self.load_stream)
            self.mem_pool_host.load_to_device_all_layer(
                self.mem_pool_device, op.host_pages, op.device_pages, self.load_stream
            )
            finish_event = cuda.event(timing=False)
            finish_event.record(stream=self.load_stream)
            op.finish_events.append(finish_event)
            self.ack_load_queue.put(op)

    def backup_thread_func(self):
        while not self.stop_event.is_set():
            try:
                first = self.backup_queue.get(timeout=1)
            except Empty:
                continue
            op = CacheOperation.merge_ops(_drain(self.backup_queue, first, self.max_batch_ops))
            for event in op.finish_events:
                event.synchronize()
            pages = [self.mem_pool_host.get_page_buffer(p) for p in op.host_pages]
            written = self.storage_backend.batch_set(op.hash_values, pages)
            logger.debug("Backed up %d/%d pages to storage", written, len(pages))

    @staticmethod
    def _poll(ack_queue: Queue) -> List[int]:
        finished: List[int] = []
        while not ack_queue.empty() and all(e.query() for e in ack_queue.queue[0].finish_events):
            finished.extend(ack_queue.get_nowait().node_ids)
        return finished

    def writing_check(self) -> List[int]:
        return self._poll(self.ack_write_queue)

    def loading_check(self) -> List[int]:
        return self._poll(self.ack_load_queue)

    def shutdown(self):
        self.stop_event.set()
        for t in self.threads:
            t.join()
