from __future__ import annotations

import logging
from typing import List, Optional

import torch

from hicache.constants import IO_BACKEND_DIRECT, SUPPORTED_WRITE_POLICIES
from hicache.pool_host import MHATokenToKVPoolHost
from hicache.utils import CacheOperation, HiCacheAck, device_module

logger = logging.getLogger(__name__)


class HiCacheController:
    def __init__(
        self,
        token_to_kv_pool_allocator,
        mem_pool_host: MHATokenToKVPoolHost,
        page_size: int,
        write_policy: str = "write_through",
        io_backend: str = IO_BACKEND_DIRECT,
    ):
        if write_policy not in SUPPORTED_WRITE_POLICIES:
            raise ValueError(f"Invalid write policy: {write_policy}")
        self.mem_pool_device_allocator = token_to_kv_pool_allocator
        self.mem_pool_device = token_to_kv_pool_allocator.get_kvcache()
        self.mem_pool_host = mem_pool_host
        self.page_size = page_size
        self.write_policy = write_policy
        self.io_backend = io_backend

        self.write_stream = device_module.Stream()
        self.write_queue: List[CacheOperation] = []
        self.ack_write_queue: List[HiCacheAck] = []

    def write(
        self,
        device_indices: torch.Tensor,
        priority: Optional[int] = None,
        node_id: int = -1,
    ) -> Optional[torch.Tensor]:
        # device_indices is the scheduler's CPU copy of the node's KV slots
        assert device_indices.device.type == "cpu"
        host_indices = self.mem_pool_host.alloc(len(device_indices))
        if host_indices is None:
            return None
        self.write_queue.append(
            CacheOperation(host_indices, device_indices, node_id, priority)
        )
        self.start_writing()
        return host_indices

    def start_writing(self) -> None:
        if not self.write_queue:
            return
        op = CacheOperation.merge_ops(self.write_queue)
        self.write_queue.clear()

        start_event = device_module.Event()
        finish_event = device_module.Event()
        current_stream = device_module.current_stream()
        with device_module.stream(self.write_stream):
            self.write_stream.wait_stream(current_stream)
            start_event.record()
            self.mem_pool_host.backup_from_device_all_layer(
                self.mem_pool_device, op.host_indices, op.device_indices
            )
            finish_event.record()
        self.ack_write_queue.append(
            HiCacheAck(start_event, finish_event, op.node_ids, len(op.host_indices))
        )

    def poll_write_acks(self) -> List[int]:
        finished: List[int] = []
        while self.ack_write_queue and self.ack_write_queue[0].finish_event.query():
            ack = self.ack_write_queue.pop(0)
            finished.extend(ack.node_ids)
            logger.debug("HiCache write done: %d tokens", ack.num_tokens)
        return finished
