from __future__ import annotations

import logging
import threading
from queue import Empty, Queue
from typing import List, NamedTuple, Optional

import torch

from .hicache_storage import STORAGE_BATCH_SIZE, HiCacheStorage
from .memory_pool_host import MHATokenToKVPoolHost

logger = logging.getLogger(__name__)

device_module = torch.get_device_module()


class HiCacheAck(NamedTuple):
    start_event: torch.Event
    finish_event: torch.Event
    node_ids: List[int]


class StorageOperation:
    counter = 0

    def __init__(self, host_indices, token_ids: List[int], hash_value: List[str], ready_event=None):
        self.host_indices = host_indices
        self.token_ids = token_ids
        self.hash_value = hash_value
        self.ready_event = ready_event
        self.completed_tokens = 0
        self.id = StorageOperation.counter
        StorageOperation.counter += 1


class HiCacheController:
    def __init__(
        self,
        mem_pool_device,
        mem_pool_host: MHATokenToKVPoolHost,
        page_size: int,
        storage_backend: Optional[HiCacheStorage] = None,
        write_policy: str = "write_through",
    ):
        self.mem_pool_device = mem_pool_device
        self.mem_pool_host = mem_pool_host
        self.page_size = page_size
        self.write_policy = write_policy
        self.storage_backend = storage_backend
        self.enable_storage = storage_backend is not None

        self.ack_write_queue: List[HiCacheAck] = []
        self.write_stream = device_module.Stream()

        self.stop_event = threading.Event()
        self.backup_queue: Queue[StorageOperation] = Queue()
        self.ack_backup_queue: Queue[StorageOperation] = Queue()
        if self.enable_storage:
            self.backup_thread = threading.Thread(target=self.backup_thread_func, daemon=True)
            self.backup_thread.start()

    def write(self, device_indices: torch.Tensor, node_id: int = -1) -> Optional[torch.Tensor]:
        host_indices = self.mem_pool_host.alloc(len(device_indices))
        if host_indices is None:
            return None
        start_event = device_module.Event()
        finish_event = device_module.Event()
        start_event.record()
        with device_module.stream(self.write_stream):
            start_event.wait(self.write_stream)
            self.mem_pool_host.backup_from_device_all_layer(
                self.mem_pool_device, host_indices, device_indices
            )
            finish_event.record()
        self.ack_write_queue.append(HiCacheAck(start_event, finish_event, [node_id]))
        return host_indices

    def write_storage(self, host_indices, token_ids, hash_value, ready_event=None) -> int:
        operation = StorageOperation(host_indices, token_ids, hash_value, ready_event)
        self.backup_queue.put(operation)
        return operation.id

    def _page_backup(self, operation: StorageOperation) -> None:
        for i in range(0, len(operation.hash_value), STORAGE_BATCH_SIZE):
            batch_hashes = operation.hash_value[i : i + STORAGE_BATCH_SIZE]
            start = i * self.page_size
            batch_host_indices = operation.host_indices[start : start + len(batch_hashes) * self.page_size]
            pages = [
                self.mem_pool_host.get_flat_data_page(idx)
                for idx in batch_host_indices[:: self.page_size].tolist()
            ]
            if not self.storage_backend.batch_set(batch_hashes, pages):
                logger.warning("Write page to storage: %d pages failed.", len(batch_hashes))
                break
            operation.completed_tokens += len(batch_hashes) * self.page_size

    def backup_thread_func(self) -> None:
        while not self.stop_event.is_set():
            try:
                operation = self.backup_queue.get(block=True, timeout=1)
            except Empty:
                continue
            if operation.ready_event is not None:
                operation.ready_event.synchronize()
            self._page_backup(operation)
            self.ack_backup_queue.put(operation)
