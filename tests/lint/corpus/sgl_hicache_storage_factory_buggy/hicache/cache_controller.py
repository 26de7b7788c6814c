"""Moves KV between the device pool, the host pool and L3 storage (the shape of SGLang's
HiCacheController): device -> host write-backs on a d2h stream, acknowledged through events
the scheduler polls; host -> storage backups on a backup thread."""

import logging
import threading
from contextlib import contextmanager
from queue import Empty, Queue
from typing import List, NamedTuple, Optional

import torch

from .memory_pool_host import HostKVCache
from .storage import HiCacheStorageConfig, StorageBackendFactory

logger = logging.getLogger(__name__)


class HiCacheAck(NamedTuple):
    finish_event: torch.cuda.Event
    node_ids: List[int]
    host_pages: List[int]


class StorageOperation(NamedTuple):
    host_pages: List[int]
    hashes: List[str]
    node_id: int


class HiCacheController:

    def __init__(self, device_pool, host_pool: HostKVCache, storage_backend: Optional[str] = None,
                 storage_config: Optional[HiCacheStorageConfig] = None):
        self.device_pool = device_pool
        self.host_pool = host_pool
        self.d2h_stream = torch.cuda.Stream()
        self.ack_write_queue: List[HiCacheAck] = []
        self.ack_backup_queue: "Queue[int]" = Queue()
        self.backup_queue: "Queue[StorageOperation]" = Queue()
        self.stop_event = threading.Event()
        self.storage_backend = None
        if storage_backend is not None:
            self.storage_backend = StorageBackendFactory.create_backend(
                storage_backend, storage_config or HiCacheStorageConfig())
            self.backup_thread = threading.Thread(target=self.backup_thread_func, daemon=True)
            self.backup_thread.start()

    @contextmanager
    def _submission(self, stream):
        start = torch.cuda.Event()
        start.record()
        finish = torch.cuda.Event()
        with torch.cuda.stream(stream):
            start.wait(stream)
            yield finish
            finish.record()

    def write(self, device_pages: List[int], node_id: int) -> Optional[List[int]]:
        """Back device pages up to the host pool; returns the host pages, None if it is full."""
        host_pages = self.host_pool.alloc(len(device_pages))
        if host_pages is None:
            return None
        with self._submission(self.d2h_stream) as finish:
            self.host_pool.backup_from_device_all_layer(self.device_pool, host_pages, device_pages)
        self.ack_write_queue.append(HiCacheAck(finish, [node_id], host_pages))
        return host_pages

    def write_storage(self, host_pages: List[int], hashes: List[str], node_id: int) -> None:
        self.backup_queue.put(StorageOperation(host_pages, hashes, node_id))

    def backup_thread_func(self):
        while not self.stop_event.is_set():
            try:
                op = self.backup_queue.get(timeout=1)
            except Empty:
                continue
            values = [self.host_pool.get_flat_data_page(p) for p in op.host_pages]
            if not self.storage_backend.batch_set(op.hashes, values):
                logger.warning("storage backup of node %d failed", op.node_id)
            self.ack_backup_queue.put(op.node_id)
