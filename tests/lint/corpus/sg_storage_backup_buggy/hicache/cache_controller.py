"""Write-through to host memory plus an asynchronous backup thread to L3."""

import threading
from queue import Empty, Queue
from typing import List, NamedTuple, Optional, Tuple

import torch

from .config import BACKUP_POLL_TIMEOUT_S
from .memory_pool import MHATokenToKVPool, MHATokenToKVPoolHost
from .storage import HiCacheFile


class HiCacheAck(NamedTuple):
    start_event: torch.cuda.Event
    finish_event: torch.cuda.Event
    node_ids: List[int]


class StorageOperation:
    counter = 0

    def __init__(self, host_pages: torch.Tensor, hash_values: List[str], finish_event: torch.cuda.Event):
        self.host_pages = host_pages
        self.hash_values = hash_values
        self.finish_event = finish_event  # recorded on the write stream after the D2H
        self.id = StorageOperation.counter
        StorageOperation.counter += 1


class HiCacheController:
    def __init__(self, device_pool: MHATokenToKVPool, host_pool: MHATokenToKVPoolHost):
        self.device_pool = device_pool
        self.host_pool = host_pool
        self.storage_backend = HiCacheFile()
        self.write_stream = torch.cuda.Stream()
        self.ack_write_queue: List[HiCacheAck] = []
        self.backup_queue: "Queue[StorageOperation]" = Queue()
        self.ack_backup_queue: "Queue[Tuple[int, bool]]" = Queue()
        self.stop_event = threading.Event()
        self.backup_thread = threading.Thread(target=self.backup_thread_func, daemon=True)
        self.backup_thread.start()

    def write(self, device_pages: torch.Tensor, node_id: int) -> Optional[Tuple[torch.Tensor, torch.cuda.Event]]:
        host_pages = self.host_pool.alloc(len(device_pages))
        if host_pages is None:
            return None
        start_event = torch.cuda.Event()
        finish_event = torch.cuda.Event()
        start_event.record()
        with torch.cuda.stream(self.write_stream):
            start_event.wait(self.write_stream)
            self.host_pool.backup_from_device_all_layer(self.device_pool, host_pages, device_pages)
            finish_event.record()
        self.ack_write_queue.append(HiCacheAck(start_event, finish_event, [node_id]))
        return host_pages, finish_event

    def write_storage(self, host_pages: torch.Tensor, hash_values: List[str], finish_event) -> int:
        op = StorageOperation(host_pages, hash_values, finish_event)
        self.backup_queue.put(op)
        return op.id

    def backup_thread_func(self) -> None:
        while not self.stop_event.is_set():
            try:
                op = self.backup_queue.get(block=True, timeout=BACKUP_POLL_TIMEOUT_S)
            except Empty:
                continue
            torch.cuda.current_stream().synchronize()
            ok = self.storage_backend.batch_set(op.hash_values, self.host_pool, op.host_pages.tolist())
            self.ack_backup_queue.put((op.id, ok))
