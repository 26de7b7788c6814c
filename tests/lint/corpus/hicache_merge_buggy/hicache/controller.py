import logging
import threading
from queue import Empty, Queue
from typing import List, Optional

import torch

from .constants import (
    MAX_MERGED_WRITE_OPS,
    SUPPORTED_WRITE_POLICIES,
    WRITE_QUEUE_POLL_TIMEOUT_S,
)
from .host_pool import MHATokenToKVPoolHost
from .operations import CacheOperation, HiCacheAck

logger = logging.getLogger(__name__)

device_module = torch.get_device_module()


class HiCacheController:
    def __init__(
        self,
        token_to_kv_pool_allocator,
        mem_pool_host: MHATokenToKVPoolHost,
        write_policy: str = "write_through_selective",
    ):
        if write_policy not in SUPPORTED_WRITE_POLICIES:
            raise ValueError(f"Invalid write policy: {write_policy}")
        self.mem_pool_device_allocator = token_to_kv_pool_allocator
        self.mem_pool_device = token_to_kv_pool_allocator.get_kvcache()
        self.mem_pool_host = mem_pool_host
        self.write_policy = write_policy
        self.device = self.mem_pool_device.device

        self.write_stream = device_module.Stream()
        self.write_queue: Queue[CacheOperation] = Queue()
        self.ack_write_queue: Queue[HiCacheAck] = Queue()

        self.stop_event = threading.Event()
        self.write_thread = threading.Thread(
            target=self.write_thread_func_direct, daemon=True
        )
        self.write_thread.start()

    def write(
        self,
        device_pages: List[int],
        priority: Optional[int] = None,
        node_id: int = -1,
    ) -> Optional[List[int]]:
        """Back up KV pages from device memory to host memory."""
        host_pages = self.mem_pool_host.alloc_pages(len(device_pages))
        if host_pages is None:
            return None
        ready_event = device_module.Event()
        ready_event.record(device_module.current_stream())
        self.write_queue.put(
            CacheOperation(host_pages, device_pages, [node_id], [ready_event], priority)
        )
        return host_pages

    def _drain_write_queue(self) -> List[CacheOperation]:
        ops = [self.write_queue.get(block=True, timeout=WRITE_QUEUE_POLL_TIMEOUT_S)]
        while len(ops) < MAX_MERGED_WRITE_OPS:
            try:
                ops.append(self.write_queue.get_nowait())
            except Empty:
                break
        return ops

    def write_thread_func_direct(self) -> None:
        device_module.set_device(self.device)
        while not self.stop_event.is_set():
            try:
                ops = self._drain_write_queue()
            except Empty:
                continue
            op = CacheOperation.merge_ops(ops)
            for ev in op.ready_events:
                self.write_stream.wait_event(ev)
            with device_module.stream(self.write_stream):
                self.mem_pool_host.backup_from_device_all_layer(
                    self.mem_pool_device, op.host_pages, op.device_pages
                )
                finish_event = device_module.Event()
                finish_event.record(self.write_stream)
            self.ack_write_queue.put(
                HiCacheAck(finish_event, op.node_ids, len(op.device_pages))
            )
            logger.debug("Queued backup of %d pages", len(op.device_pages))

    def shutdown(self) -> None:
        self.stop_event.set()
        self.write_thread.join(timeout=10)
