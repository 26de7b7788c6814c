"""Moves KV pages between device, host and the storage tier."""

from __future__ import annotations

import enum
import queue
import threading
from dataclasses import dataclass

import torch

from hicache.memory_pool import MHATokenToKVPool, MHATokenToKVPoolHost
from hicache.storage import HiCacheFile


class TransferDirection(enum.Enum):
    D2H = "d2h"
    H2D = "h2d"


@dataclass
class BackupOperation:
    node_id: int
    host_pages: list[int]
    keys: list[str]


class HiCacheController:
    def __init__(
        self,
        device_pool: MHATokenToKVPool,
        host_pool: MHATokenToKVPoolHost,
        storage_backend: HiCacheFile,
    ):
        self.device_pool = device_pool
        self.host_pool = host_pool
        self.storage_backend = storage_backend
        self.streams = {d: torch.cuda.Stream() for d in TransferDirection}
        self.ack_write_queue: list[tuple[torch.cuda.Event, int]] = []
        self.ack_load_queue: list[tuple[torch.cuda.Event, int]] = []
        self.backup_queue: "queue.Queue[BackupOperation]" = queue.Queue()
        self.ack_backup_queue: "queue.Queue[int]" = queue.Queue()
        self.stop_event = threading.Event()
        self.backup_thread = threading.Thread(target=self.backup_thread_func, daemon=True)
        self.backup_thread.start()

    def write(self, device_pages: list[int], keys: list[str], node_id: int):
        host_pages = self.host_pool.alloc(len(device_pages))
        if host_pages is None:
            return None
        stream = self.streams[TransferDirection.D2H]
        with torch.cuda.stream(stream):
            for d, h in zip(device_pages, host_pages):
                # expect: KVG001
                self.host_pool.get_page_buffer(h).copy_(self.device_pool.page(d), non_blocking=True)
            finish_event = torch.cuda.Event()
            finish_event.record(stream)
        self.ack_write_queue.append((finish_event, node_id))
        self.backup_queue.put(BackupOperation(node_id, host_pages, keys))
        return host_pages

    def load(self, host_pages: list[int], device_pages: list[int], node_id: int) -> None:
        stream = self.streams[TransferDirection.H2D]
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            for h, d in zip(host_pages, device_pages):
                self.device_pool.page(d).copy_(self.host_pool.get_page_buffer(h), non_blocking=True)
            finish_event = torch.cuda.Event()
            finish_event.record(stream)
        self.ack_load_queue.append((finish_event, node_id))

    def backup_thread_func(self) -> None:
        while not self.stop_event.is_set():
            try:
                op = self.backup_queue.get(timeout=1)
            except queue.Empty:
                continue
            for page, key in zip(op.host_pages, op.keys):
                self.storage_backend.set(key, self.host_pool.get_page_buffer(page))
            self.ack_backup_queue.put(op.node_id)

    def shutdown(self) -> None:
        self.stop_event.set()
        self.backup_thread.join()
