from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from queue import Empty, Queue
from typing import List, Optional

import torch

from sgl_hicache.constants import BACKUP_POLL_TIMEOUT_S, STORAGE_BATCH_SIZE
from sgl_hicache.memory_pool_host import MHATokenToKVPoolHost
from sgl_hicache.storage import HiCacheStorage
from sgl_hicache.transfer import L2TransferEngine, TransferCompletion

logger = logging.getLogger(__name__)


@dataclass
class StorageOperation:
    host_pages: torch.Tensor
    page_keys: List[str]
    node_id: int


@dataclass
class HiCacheAck:
    completion: TransferCompletion
    node_ids: List[int]
    storage_op: Optional[StorageOperation] = None


class HiCacheController:
    def __init__(
        self,
        device_pool,
        mem_pool_host: MHATokenToKVPoolHost,
        storage_backend: Optional[HiCacheStorage] = None,
        write_policy: str = "write_through",
    ):
        if write_policy not in ("write_through", "write_back"):
            raise ValueError(f"Invalid write policy: {write_policy}")
        self.device_pool = device_pool
        self.mem_pool_host = mem_pool_host
        self.storage_backend = storage_backend
        self.write_policy = write_policy
        self.transfer_engine = L2TransferEngine(device_pool.device_id)

        self.ack_write_queue: List[HiCacheAck] = []
        self.backup_queue: Queue = Queue()
        self.ack_backup_queue: Queue = Queue()
        self.stop_event = threading.Event()
        self.enable_storage = storage_backend is not None
        if self.enable_storage:
            self.backup_thread = threading.Thread(target=self.backup_thread_func, daemon=True)
            self.backup_thread.start()

    def write(
        self, device_pages: torch.Tensor, page_keys: List[str], node_id: int
    ) -> Optional[torch.Tensor]:
        host_pages = self.mem_pool_host.alloc(len(device_pages))
        if host_pages is None:
            return None
        producer = torch.cuda.current_stream().cuda_stream
        completion = self.transfer_engine.submit_device_to_host(
            self.mem_pool_host.page_ptrs(host_pages),
            self.device_pool.page_ptrs(device_pages),
            self.mem_pool_host.page_nbytes,
            producer,
        )
        storage_op = None
        if self.enable_storage:
            storage_op = StorageOperation(host_pages, list(page_keys), node_id)
        self.ack_write_queue.append(HiCacheAck(completion, [node_id], storage_op))
        return host_pages

    def writing_check(self, block: bool = False) -> List[int]:
        finished: List[int] = []
        while self.ack_write_queue:
            ack = self.ack_write_queue[0]
            if not block and not self.transfer_engine.is_done(ack.completion.finish_event):
                break
            self.transfer_engine.wait(ack.completion.finish_event)
            self.ack_write_queue.pop(0)
            finished.extend(ack.node_ids)
            if ack.storage_op is not None:
                self.backup_queue.put(ack.storage_op)
            self.transfer_engine.release(ack.completion)
        return finished

    def backup_thread_func(self):
        while not self.stop_event.is_set():
            try:
                op = self.backup_queue.get(block=True, timeout=BACKUP_POLL_TIMEOUT_S)
            except Empty:
                continue
            pages, success = op.host_pages.tolist(), True
            for i in range(0, len(pages), STORAGE_BATCH_SIZE):
                batch = pages[i : i + STORAGE_BATCH_SIZE]
                values = [self.mem_pool_host.get_flat_data_page(p) for p in batch]
                if not self.storage_backend.batch_set(op.page_keys[i : i + STORAGE_BATCH_SIZE], values):
                    logger.warning("L3 backup of node %d stopped early", op.node_id)
                    success = False
                    break
            self.ack_backup_queue.put((op.node_id, success))
