import logging
import threading
from dataclasses import dataclass
from queue import Empty, Queue
from typing import List, Optional

import torch
from numba import cuda

from hicache_l3.device_pool import PageFirstDeviceKVPool
from hicache_l3.hicache_storage import HiCacheStorage, get_hash_str
from hicache_l3.memory_pool_host import HostKVCache

logger = logging.getLogger(__name__)


@dataclass
class BackupOperation:
    id: int
    host_starts: List[int]
    device_starts: List[int]
    token_ids: List[int]
    ready_event: object
    completed_pages: int = 0


class HiCacheStorageController:
    """Backs up device KV pages straight to the L3 storage backend through host staging pages."""

    def __init__(self, mem_pool_device: PageFirstDeviceKVPool, mem_pool_host: HostKVCache,
                 storage_backend: HiCacheStorage, storage_batch_size: int = 64):
        self.mem_pool_device = mem_pool_device
        self.mem_pool_host = mem_pool_host
        self.storage_backend = storage_backend
        self.page_size = mem_pool_device.page_size
        self.storage_batch_size = storage_batch_size
        self.op_counter = 0
        self.backup_queue: "Queue[BackupOperation]" = Queue()
        self.ack_backup_queue: "Queue[BackupOperation]" = Queue()
        self.stop_event = threading.Event()
        self.backup_thread = threading.Thread(target=self.backup_thread_func, daemon=True)
        self.backup_thread.start()

    def write_storage(self, device_starts: List[int], token_ids: List[int]) -> Optional[int]:
        host_starts = self.mem_pool_host.alloc(len(device_starts) * self.page_size)
        if host_starts is None:
            return None
        compute_stream = cuda.external_stream(torch.cuda.current_stream().cuda_stream)
        ready_event = cuda.event(timing=False)
        ready_event.record(compute_stream)
        self.op_counter += 1
        self.backup_queue.put(
            BackupOperation(self.op_counter, host_starts, device_starts, token_ids, ready_event)
        )
        return self.op_counter

    def _page_hashes(self, token_ids: List[int]) -> List[str]:
        hashes, prior = [], None
        for i in range(0, len(token_ids) - self.page_size + 1, self.page_size):
            prior = get_hash_str(token_ids[i : i + self.page_size], prior)
            hashes.append(prior)
        return hashes

    def _backup_one(self, op: BackupOperation) -> None:
        hashes = self._page_hashes(op.token_ids)
        op.ready_event.wait(self.backup_stream)
        for i in range(0, len(hashes), self.storage_batch_size):
            batch_host = op.host_starts[i : i + self.storage_batch_size]
            batch_device = op.device_starts[i : i + self.storage_batch_size]
            for h, d in zip(batch_host, batch_device):
                self.mem_pool_host.backup_page_from_device(
                    self.mem_pool_device.kv_view, h, d, self.backup_stream
                )
            self.backup_stream.synchronize()
            values = [bytes(self.mem_pool_host.get_flat_page(h)) for h in batch_host]
            if not self.storage_backend.batch_set(hashes[i : i + len(batch_host)], values):
                logger.warning("Backup op %d stopped after %d pages", op.id, op.completed_pages)
                break
            op.completed_pages += len(batch_host)

    def backup_thread_func(self) -> None:
        cuda.select_device(self.mem_pool_device.device.index or 0)
        self.backup_stream = cuda.stream()
        while not self.stop_event.is_set():
            try:
                op = self.backup_queue.get(block=True, timeout=1)
            except Empty:
                continue
            try:
                self._backup_one(op)
            finally:
                self.backup_stream.synchronize()
                self.mem_pool_host.free(op.host_starts)
                self.ack_backup_queue.put(op)
