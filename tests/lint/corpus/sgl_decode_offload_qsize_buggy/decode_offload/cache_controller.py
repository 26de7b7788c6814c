"""Device -> host write-through and host -> storage backup (HiCacheController shape)."""

import queue
import threading
from typing import List, NamedTuple

import torch

from decode_offload.memory_pool_host import DeviceKVPool, HostKVPool
from decode_offload.storage import create_storage_backend


class HiCacheAck(NamedTuple):
    start_event: torch.cuda.Event
    finish_event: torch.cuda.Event
    node_ids: List[int]


class StorageOperation(NamedTuple):
    id: int
    host_pages: List[int]
    hash_value: List[str]


class HiCacheController:

    def __init__(self, device_pool: DeviceKVPool, host_pool: HostKVPool, storage_backend: str,
                 storage_extra_config: dict):
        self.mem_pool_device = device_pool
        self.mem_pool_host = host_pool
        self._streams = {"write": torch.cuda.Stream(), "load": torch.cuda.Stream()}
        self.ack_write_queue: List[HiCacheAck] = []
        self.backup_queue: "queue.Queue[StorageOperation]" = queue.Queue()
        self.ack_backup_queue: "queue.Queue[StorageOperation]" = queue.Queue()
        self.storage_backend = create_storage_backend(storage_backend, storage_extra_config)
        self._op_id = 0
        self.backup_thread = threading.Thread(target=self.backup_thread_func, daemon=True)
        self.backup_thread.start()

    @property
    def write_stream(self) -> torch.cuda.Stream:
        return self._streams["write"]

    def write(self, device_pages: List[int], node_id: int):
        host_pages = self.mem_pool_host.alloc(len(device_pages))
        if host_pages is None:
            return None
        start_event, finish_event = torch.cuda.Event(), torch.cuda.Event()
        start_event.record()
        with torch.cuda.stream(self.write_stream):
            start_event.wait(self.write_stream)
            self.mem_pool_host.backup_from_device_all_layer(self.mem_pool_device, host_pages, device_pages)
            finish_event.record()
        self.ack_write_queue.append(HiCacheAck(start_event, finish_event, [node_id]))
        return host_pages

    def write_storage(self, host_pages: List[int], hash_value: List[str]) -> int:
        self._op_id += 1
        self.backup_queue.put(StorageOperation(self._op_id, host_pages, hash_value))
        return self._op_id

    def backup_thread_func(self) -> None:
        while True:
            op = self.backup_queue.get()
            pages = [self.mem_pool_host.get_page(p) for p in op.host_pages]
            self.storage_backend.batch_set(op.hash_value, pages)
            self.ack_backup_queue.put(op)
