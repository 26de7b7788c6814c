import hashlib
import logging
import queue
import threading
from dataclasses import dataclass
from typing import Any, List

import cupy

from hicache_l3.config import HiCacheStorageConfig
from hicache_l3.staging import PinnedStagingBuffer, page_view
from hicache_l3.storage_backend import HiCacheFile

logger = logging.getLogger(__name__)


@dataclass
class StorageBackupOperation:
    page_indices: List[int]
    prior_hash: str
    ready_event: Any


class HiCacheStorageController:
    def __init__(self, kv_buffer: cupy.ndarray, config: HiCacheStorageConfig):
        self.kv_buffer = kv_buffer
        self.config = config
        self.storage = HiCacheFile(config.storage_dir)
        page_shape = page_view(kv_buffer, 0, config.page_size).shape
        self.staging = PinnedStagingBuffer(config.staging_pages, page_shape, kv_buffer.dtype)
        self.backup_stream = cupy.cuda.Stream(non_blocking=True)
        self.backup_queue: "queue.Queue[StorageBackupOperation]" = queue.Queue()
        self.ack_backup_queue: "queue.Queue[str]" = queue.Queue()
        self.stop_event = threading.Event()
        self.backup_thread = threading.Thread(target=self.backup_thread_func, daemon=True)
        self.backup_thread.start()

    def write_storage(self, page_indices: List[int], prior_hash: str = "") -> None:
        ready = cupy.cuda.Event(disable_timing=True)
        ready.record(cupy.cuda.get_current_stream())
        self.backup_queue.put(StorageBackupOperation(page_indices, prior_hash, ready))

    def _backup_page(self, page_index: int, prior_hash: str) -> str:
        staging = self.staging.next_page()
        gpu_page = page_view(self.kv_buffer, page_index, self.config.page_size)
        with self.backup_stream:
            gpu_page.get(stream=self.backup_stream, out=staging, blocking=False)
        hasher = hashlib.sha256(prior_hash.encode())
        # expect: KVG003
        hasher.update(staging.tobytes())
        key = hasher.hexdigest()
        self.backup_stream.synchronize()
        self.storage.set(key, staging)
        return key

    def backup_thread_func(self):
        while not self.stop_event.is_set():
            try:
                op = self.backup_queue.get(timeout=self.config.backup_queue_timeout_s)
            except queue.Empty:
                continue
            self.backup_stream.wait_event(op.ready_event)
            last_hash = op.prior_hash
            for page_index in op.page_indices:
                last_hash = self._backup_page(page_index, last_hash)
            self.ack_backup_queue.put(last_hash)
            logger.debug("backed up %d pages to storage", len(op.page_indices))
