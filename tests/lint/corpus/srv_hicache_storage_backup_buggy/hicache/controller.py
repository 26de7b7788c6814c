"""HiCache controller with an L3 storage tier behind the host pool."""

import logging
import threading
from dataclasses import dataclass
from queue import Empty, Queue
from typing import Any, List, Optional

import torch

from .host_pool import PageFirstHostKVPool
from .storage import HiCacheFile

logger = logging.getLogger(__name__)


@dataclass
class StorageBackupOp:
    node_id: int
    host_pages: List[int]
    keys: List[str]
    finish_event: Any


class HiCacheStorageController:
    def __init__(self, device_pool, host_pool: PageFirstHostKVPool, storage: HiCacheFile,
                 device: str = "cuda"):
        self.device_pool = device_pool
        self.host_pool = host_pool
        self.storage = storage
        self.device_module = torch.get_device_module(device)
        self.write_stream = self.device_module.Stream()
        self.backup_queue: "Queue[StorageBackupOp]" = Queue()
        self.ack_backup_queue: "Queue[int]" = Queue()
        self.prefetch_queue: "Queue[tuple]" = Queue()
        self.stop_event = threading.Event()
        self.backup_thread = threading.Thread(target=self.backup_thread_func, daemon=True)
        self.backup_thread.start()

    def write(self, device_pages: List[int], keys: List[str], node_id: int) -> Optional[List[int]]:
        """Scheduler thread: device -> host, then host -> storage in the background."""
        host_pages = self.host_pool.alloc(len(device_pages))
        if host_pages is None:
            return None
        self.write_stream.wait_stream(self.device_module.current_stream())
        with self.device_module.stream(self.write_stream):
            self.host_pool.backup_from_device(self.device_pool, host_pages, device_pages)
            finish_event = self.device_module.Event()
            finish_event.record()
        self.backup_queue.put(StorageBackupOp(node_id, host_pages, keys, finish_event))
        return host_pages

    def backup_thread_func(self) -> None:
        while not self.stop_event.is_set():
            try:
                op = self.backup_queue.get(timeout=1)
            except Empty:
                continue
            if not op.finish_event.query():
                logger.debug("host copy of node %d still in flight", op.node_id)
            stored = 0
            for page, key in zip(op.host_pages, op.keys):
                if self.storage.exists(key):
                    stored += 1
                    continue
                if self.storage.set(key, self.host_pool.get_page(page)):
                    stored += 1
            if stored < len(op.keys):
                logger.warning("node %d: %d/%d pages backed up", op.node_id, stored, len(op.keys))
            self.ack_backup_queue.put(op.node_id)

    def prefetch(self, keys: List[str]) -> Optional[List[int]]:
        """Storage -> host for a prefix hit in L3 (host pages are new allocations)."""
        host_pages = self.host_pool.alloc(len(keys))
        if host_pages is None:
            return None
        for page, key in zip(host_pages, keys):
            if self.storage.get(key, self.host_pool.get_page(page)) is None:
                self.host_pool.free(host_pages)
                return None
        return host_pages

    def shutdown(self) -> None:
        self.stop_event.set()
        self.backup_thread.join(timeout=5)
