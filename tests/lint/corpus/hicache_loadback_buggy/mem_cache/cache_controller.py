import threading
from queue import Empty, Queue
from typing import List, NamedTuple, Optional

import torch

from mem_cache.device_utils import LayerDoneCounter, current_stream, new_stream
from mem_cache.memory_pool import HostKVPool, MHATokenToKVPool
from mem_cache.storage import HiCacheFile

class CacheOperation(NamedTuple):
    host_pages: List[int]
    device_pages: List[int]
    node_ids: List[int]


class StorageOperation(NamedTuple):
    host_pages: List[int]
    hash_values: List[str]
    finish_event: torch.Event


class HiCacheAck(NamedTuple):
    start_event: Optional[torch.Event]
    finish_event: torch.Event
    node_ids: List[int]
    host_pages: Optional[List[int]] = None


class HiCacheController:
    def __init__(self, mem_pool_device: MHATokenToKVPool, mem_pool_host: HostKVPool,
                 storage_backend: Optional[HiCacheFile] = None):
        self.mem_pool_device = mem_pool_device
        self.mem_pool_host = mem_pool_host
        self.layer_num = mem_pool_device.layer_num
        self.layer_done_counter = LayerDoneCounter(self.layer_num)
        self.write_stream = new_stream(mem_pool_device.device)
        self.load_stream = new_stream(mem_pool_device.device)
        self.load_queue: List[CacheOperation] = []
        self.ack_load_queue: List[HiCacheAck] = []

        self.storage_backend = storage_backend
        self.backup_queue: "Queue[StorageOperation]" = Queue()
        self.stop_event = threading.Event()
        if storage_backend is not None:
            self.backup_thread = threading.Thread(target=self.backup_thread_func, daemon=True)
            self.backup_thread.start()

    def write(self, device_pages: List[int], node_id: int) -> Optional[HiCacheAck]:
        host_pages = self.mem_pool_host.alloc_pages(len(device_pages))
        if host_pages is None:
            return None
        compute_stream = current_stream()
        finish_event = torch.Event()
        with torch.cuda.stream(self.write_stream):
            self.write_stream.wait_stream(compute_stream)
            self.mem_pool_host.backup_from_device_all_layer(self.mem_pool_device, host_pages, device_pages)
            finish_event.record()
        return HiCacheAck(None, finish_event, [node_id], host_pages)

    def write_storage(self, host_pages: List[int], hash_values: List[str], finish_event: torch.Event) -> None:
        self.backup_queue.put(StorageOperation(host_pages, hash_values, finish_event))

    def load(self, host_pages: List[int], node_id: int) -> Optional[List[int]]:
        device_pages = self.mem_pool_device.alloc_pages(len(host_pages))
        if device_pages is None:
            return None
        self.load_queue.append(CacheOperation(host_pages, device_pages, [node_id]))
        return device_pages

    def start_loading(self) -> int:
        if not self.load_queue:
            return -1
        producer_id = self.layer_done_counter.update_producer()
        host_pages = [p for op in self.load_queue for p in op.host_pages]
        device_pages = [p for op in self.load_queue for p in op.device_pages]
        node_ids = [n for op in self.load_queue for n in op.node_ids]
        self.load_queue.clear()
        producer_event = self.layer_done_counter.events[producer_id]
        producer_event.start_event.record()
        with torch.cuda.stream(self.load_stream):
            for layer_id in range(self.layer_num):
                self.mem_pool_host.load_to_device_per_layer(self.mem_pool_device, host_pages, device_pages, layer_id)
                producer_event.complete(layer_id)
        self.ack_load_queue.append(HiCacheAck(producer_event.start_event, producer_event.finish_event, node_ids))
        return producer_id

    def backup_thread_func(self) -> None:
        while not self.stop_event.is_set():
            try:
                op = self.backup_queue.get(block=True, timeout=1)
            except Empty:
                continue
            for page, key in zip(op.host_pages, op.hash_values):
                if not self.storage_backend.exists(key):
                    self.storage_backend.set(key, self.mem_pool_host.get_flat_page(page))
