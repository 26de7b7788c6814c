import logging
import queue
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import List

import cupy
import torch

from hicache_storage.config import STORAGE_BATCH_SIZE, HiCacheStorageConfig
from hicache_storage.cupy_io import (alloc_staging, as_cupy, device_page_to_host,
                                     torch_current_stream)
from hicache_storage.file_backend import HiCacheFile

logger = logging.getLogger(__name__)


@dataclass
class BackupOperation:
    page_ids: List[int]
    hash_values: List[str]
    ready: cupy.cuda.Event


class StorageBackupWorker:
    """Backs up device KV pages (page_first layout) straight to the storage tier."""

    def __init__(self, kv_buffer: torch.Tensor, config: HiCacheStorageConfig):
        self.config = config
        self.kv_pages = as_cupy(kv_buffer)
        self.storage = HiCacheFile(config)
        self.stream = cupy.cuda.Stream(non_blocking=True)
        self.staging = alloc_staging(min(config.staging_pages, STORAGE_BATCH_SIZE),
                                     self.kv_pages.shape[1:], self.kv_pages.dtype)
        self.io_pool = ThreadPoolExecutor(max_workers=config.io_workers)
        self.backup_queue: "queue.Queue[BackupOperation | None]" = queue.Queue()
        self.ack_backup_queue: "queue.Queue[List[str]]" = queue.Queue()
        self.backup_thread = threading.Thread(target=self.backup_thread_func, daemon=True)
        self.backup_thread.start()

    def backup(self, page_ids: List[int], hash_values: List[str]) -> None:
        """Called from the scheduler thread right after the forward pass is enqueued."""
        ready = cupy.cuda.Event(disable_timing=True)
        ready.record(torch_current_stream())
        self.backup_queue.put(BackupOperation(page_ids, hash_values, ready))

    def _flush(self, keys: List[str], values: list, done: cupy.cuda.Event) -> None:
        done.synchronize()
        if not all(self.storage.batch_set(keys, values)):
            logger.warning("Partial backup of %d pages", len(keys))
        self.ack_backup_queue.put(keys)

    def backup_thread_func(self) -> None:
        cupy.cuda.Device(torch.cuda.current_device()).use()
        while True:
            op = self.backup_queue.get()
            if op is None:
                return
            for start in range(0, len(op.page_ids), len(self.staging)):
                page_ids = op.page_ids[start:start + len(self.staging)]
                keys = op.hash_values[start:start + len(page_ids)]
                self.stream.wait_event(op.ready)
                for slot, page_id in enumerate(page_ids):
                    device_page_to_host(self.kv_pages[page_id], self.staging[slot], self.stream)
                values = [self.staging[slot] for slot in range(len(page_ids))]
                if len(page_ids) <= self.config.inline_flush_pages:
                    self.stream.synchronize()
                    self.storage.batch_set(keys, values)
                    self.ack_backup_queue.put(keys)
                    continue
                done = cupy.cuda.Event(disable_timing=True)
                done.record(self.stream)
                self.io_pool.submit(self._flush, keys, values, done).result()
