from __future__ import annotations

import logging
import threading
from queue import Empty, Queue
from typing import List, Optional, Tuple

import torch

from .constants import (
    MAX_MERGED_WRITE_OPS,
    WRITE_POLICY_WRITE_THROUGH,
    WRITE_QUEUE_POLL_TIMEOUT_S,
)
from .memory_pool import MHATokenToKVPool
from .memory_pool_host import MHATokenToKVPoolHost
from .operations import CacheOperation

logger = logging.getLogger(__name__)


class HiCacheController:
    def __init__(
        self,
        mem_pool_device: MHATokenToKVPool,
        mem_pool_host: MHATokenToKVPoolHost,
        page_size: int,
        write_policy: str = WRITE_POLICY_WRITE_THROUGH,
    ):
        self.mem_pool_device = mem_pool_device
        self.mem_pool_host = mem_pool_host
        self.page_size = page_size
        self.write_policy = write_policy

        self.write_queue: "Queue[CacheOperation]" = Queue()
        self.ack_write_queue: "Queue[Tuple[torch.cuda.Event, List[int]]]" = Queue()
        self.write_stream = torch.cuda.Stream()

        self.stop_event = threading.Event()
        self.write_thread = threading.Thread(
            target=self.write_thread_func_direct, daemon=True
        )
        self.write_thread.start()

    def write(
        self,
        device_indices: torch.Tensor,
        priority: Optional[int] = None,
        node_id: int = -1,
    ) -> Optional[torch.Tensor]:
        """Back up KV pages from device to host memory."""
        host_indices = self.mem_pool_host.alloc(len(device_indices))
        if host_indices is None:
            return None
        ready_event = torch.cuda.Event()
        ready_event.record()
        self.write_queue.put(
            CacheOperation(host_indices, device_indices, node_id, priority, ready_event)
        )
        return host_indices

    def _drain_write_queue(self) -> List[CacheOperation]:
        ops = [self.write_queue.get(block=True, timeout=WRITE_QUEUE_POLL_TIMEOUT_S)]
        while len(ops) < MAX_MERGED_WRITE_OPS:
            try:
                ops.append(self.write_queue.get_nowait())
            except Empty:
                break
        return ops

    def write_thread_func_direct(self) -> None:
        torch.cuda.set_device(self.mem_pool_device.device)
        while not self.stop_event.is_set():
            try:
                ops = self._drain_write_queue()
            except Empty:
                continue
            operation = CacheOperation.merge_ops(ops)
            with torch.cuda.stream(self.write_stream):
                self.write_stream.wait_event(operation.ready_event)
                self.mem_pool_host.backup_from_device_all_layer(
                    self.mem_pool_device,
                    operation.host_indices,
                    operation.device_indices,
                )
                done_event = torch.cuda.Event()
                done_event.record()
            self.ack_write_queue.put((done_event, operation.node_ids))

    def poll_write_acks(self) -> List[int]:
        finished: List[int] = []
        while not self.ack_write_queue.empty():
            done_event, node_ids = self.ack_write_queue.queue[0]
            if not done_event.query():
                break
            self.ack_write_queue.get_nowait()
            finished.extend(node_ids)
        return finished

    def shutdown(self) -> None:
        self.stop_event.set()
        self.write_thread.join()
