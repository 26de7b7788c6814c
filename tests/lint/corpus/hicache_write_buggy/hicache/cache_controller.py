from __future__ import annotations

import logging
import threading
from queue import Empty, Queue
from typing import TYPE_CHECKING, List, NamedTuple, Optional

import torch

from hicache.constants import (
    BACKUP_QUEUE_TIMEOUT_S,
    DEFAULT_WRITE_POLICY,
    STORAGE_KEY_SEP,
    VALID_WRITE_POLICIES,
)

if TYPE_CHECKING:
    from hicache.memory_pool_host import MHATokenToKVPoolHost
    from hicache.storage import HiCacheFile

logger = logging.getLogger(__name__)

device_module = torch.get_device_module()


class CacheOperation:
    counter = 0

    def __init__(self, host_indices, device_indices, node_id: int, priority=None):
        self.host_indices = host_indices
        self.device_indices = device_indices
        self.node_ids = [node_id]
        self.id = CacheOperation.counter
        CacheOperation.counter += 1
        self.priority = priority if priority is not None else self.id

    @staticmethod
    def merge_ops(ops: List["CacheOperation"]) -> "CacheOperation":
        if len(ops) == 1:
            return ops[0]
        merged = CacheOperation(
            torch.cat([op.host_indices for op in ops]),
            torch.cat([op.device_indices for op in ops]),
            -1,
            min(op.priority for op in ops),
        )
        merged.node_ids = [nid for op in ops for nid in op.node_ids]
        return merged


class HiCacheAck(NamedTuple):
    start_event: torch.Event
    finish_event: torch.Event
    node_ids: List[int]
    host_indices: torch.Tensor


class HiCacheController:
    def __init__(
        self,
        mem_pool_device,
        mem_pool_host: MHATokenToKVPoolHost,
        page_size: int,
        write_policy: str = DEFAULT_WRITE_POLICY,
        io_backend: str = "direct",
        storage: Optional[HiCacheFile] = None,
    ):
        if write_policy not in VALID_WRITE_POLICIES:
            raise ValueError(f"Invalid write policy: {write_policy}")
        self.mem_pool_device = mem_pool_device
        self.mem_pool_host = mem_pool_host
        self.page_size = page_size
        self.write_policy = write_policy
        self.io_backend = io_backend
        self.storage = storage

        self.write_queue: List[CacheOperation] = []
        self.ack_write_queue: List[HiCacheAck] = []
        self.write_stream = device_module.Stream()

        self.stop_event = threading.Event()
        self.backup_queue: Queue = Queue()
        if self.storage is not None:
            self.backup_thread = threading.Thread(
                target=self.backup_thread_func, daemon=True
            )
            self.backup_thread.start()

    def write(self, device_indices, priority=None, node_id: int = -1):
        host_indices = self.mem_pool_host.alloc(len(device_indices))
        if host_indices is None:
            return None
        self.write_queue.append(
            CacheOperation(host_indices, device_indices, node_id, priority)
        )
        self.start_writing()
        return host_indices

    def move_indices(self, op: CacheOperation):
        host_indices, idx = op.host_indices.sort()
        return host_indices, op.device_indices.index_select(0, idx)

    def start_writing(self) -> None:
        if not self.write_queue:
            return
        op = CacheOperation.merge_ops(self.write_queue)
        self.write_queue.clear()
        host_indices, device_indices = self.move_indices(op)

        start_event = device_module.Event()
        finish_event = device_module.Event()
        with device_module.stream(self.write_stream):
            start_event.record()
            start_event.wait(self.write_stream)
            self.mem_pool_host.backup_from_device_all_layer(
                self.mem_pool_device, host_indices, device_indices, self.io_backend
            )
            finish_event.record()
        self.ack_write_queue.append(
            HiCacheAck(start_event, finish_event, op.node_ids, host_indices)
        )

    def writing_check(self) -> List[int]:
        finished: List[int] = []
        while self.ack_write_queue:
            ack = self.ack_write_queue[0]
            if not ack.finish_event.query():
                break
            self.ack_write_queue.pop(0)
            finished.extend(ack.node_ids)
            if self.storage is not None:
                self.backup_queue.put((ack.node_ids[0], ack.host_indices))
        return finished

    def backup_thread_func(self) -> None:
        while not self.stop_event.is_set():
            try:
                node_id, host_indices = self.backup_queue.get(
                    timeout=BACKUP_QUEUE_TIMEOUT_S
                )
            except Empty:
                continue
            starts = host_indices[:: self.page_size].tolist()
            for page_no, start in enumerate(starts):
                page = self.mem_pool_host.get_flat_data_page(start)
                key = f"{node_id}{STORAGE_KEY_SEP}{page_no}"
                if not self.storage.set(key, page):
                    logger.warning("Backup of node %d stopped at page %d", node_id, page_no)
                    break

    def shutdown(self) -> None:
        self.stop_event.set()
        if self.storage is not None:
            self.backup_thread.join()
