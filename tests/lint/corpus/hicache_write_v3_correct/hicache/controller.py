from __future__ import annotations

import logging
from typing import List, NamedTuple, Optional

import torch

from hicache.constants import IO_BACKENDS, WRITE_POLICIES
from hicache.host_pool import HostKVCache
from hicache.memory_pool import TokenToKVPoolAllocator

logger = logging.getLogger(__name__)

device_module = torch.get_device_module()


class CacheOperation:
    counter = 0

    def __init__(self, host_indices: torch.Tensor, device_indices: torch.Tensor,
                 node_id: int, priority: Optional[int] = None):
        self.host_indices = host_indices
        self.device_indices = device_indices
        self.node_ids = [node_id]
        self.id = CacheOperation.counter
        CacheOperation.counter += 1
        self.priority = priority if priority is not None else self.id

    @staticmethod
    def merge_ops(ops: List[CacheOperation]) -> CacheOperation:
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
    start_event: device_module.Event
    finish_event: device_module.Event
    node_ids: List[int]


class HiCacheController:
    def __init__(self, token_to_kv_pool_allocator: TokenToKVPoolAllocator,
                 mem_pool_host: HostKVCache, page_size: int,
                 write_policy: str = "write_through", io_backend: str = "direct"):
        if write_policy not in WRITE_POLICIES:
            raise ValueError(f"Invalid write policy: {write_policy}")
        if io_backend not in IO_BACKENDS:
            raise ValueError(f"Invalid io backend: {io_backend}")
        self.mem_pool_device_allocator = token_to_kv_pool_allocator
        self.mem_pool_device = token_to_kv_pool_allocator.get_kvcache()
        self.mem_pool_host = mem_pool_host
        self.page_size = page_size
        self.write_policy = write_policy
        self.io_backend = io_backend
        self.layer_num = self.mem_pool_device.layer_num

        self.write_stream = device_module.Stream()
        self.load_stream = device_module.Stream()

        self.write_queue: List[CacheOperation] = []
        self.load_queue: List[CacheOperation] = []
        self.ack_write_queue: List[HiCacheAck] = []
        self.ack_load_queue: List[HiCacheAck] = []

    def write(self, device_indices: torch.Tensor, priority: Optional[int] = None,
              node_id: int = -1) -> Optional[torch.Tensor]:
        host_indices = self.mem_pool_host.alloc(len(device_indices))
        if host_indices is None:
            return None
        self.write_queue.append(CacheOperation(host_indices, device_indices, node_id, priority))
        self.start_writing()
        return host_indices

    def start_writing(self) -> None:
        if not self.write_queue:
            return
        op = CacheOperation.merge_ops(self.write_queue)
        self.write_queue.clear()
        start_event = device_module.Event()
        finish_event = device_module.Event()
        start_event.record()
        with device_module.stream(self.write_stream):
            start_event.wait(self.write_stream)
            self.mem_pool_host.backup_from_device_all_layer(
                self.mem_pool_device, op.host_indices, op.device_indices, self.io_backend
            )
            finish_event.record()
        self.ack_write_queue.append(HiCacheAck(start_event, finish_event, op.node_ids))

    def evict_with_backup(self, device_indices: torch.Tensor, node_id: int) -> Optional[torch.Tensor]:
        """write_back policy: copy a node out right before its device slots are released."""
        host_indices = self.mem_pool_host.alloc(len(device_indices))
        if host_indices is None:
            return None
        finish_event = device_module.Event()
        self.write_stream.wait_stream(device_module.current_stream())
        with device_module.stream(self.write_stream):
            self.mem_pool_host.backup_from_device_all_layer(
                self.mem_pool_device, host_indices, device_indices, self.io_backend
            )
            finish_event.record()
        finish_event.synchronize()
        self.mem_pool_device_allocator.free(device_indices)
        logger.debug("Evicted node %d with %d tokens to host", node_id, len(device_indices))
        return host_indices

    def load(self, host_indices: torch.Tensor, priority: Optional[int] = None,
             node_id: int = -1) -> Optional[torch.Tensor]:
        device_indices = self.mem_pool_device_allocator.alloc(len(host_indices))
        if device_indices is None:
            return None
        self.load_queue.append(CacheOperation(host_indices, device_indices, node_id, priority))
        return device_indices

    def start_loading(self) -> None:
        if not self.load_queue:
            return
        op = CacheOperation.merge_ops(self.load_queue)
        self.load_queue.clear()
        start_event = device_module.Event()
        finish_event = device_module.Event()
        start_event.record()
        with device_module.stream(self.load_stream):
            start_event.wait(self.load_stream)
            for layer_id in range(self.layer_num):
                self.mem_pool_host.load_to_device_per_layer(
                    self.mem_pool_device, op.host_indices, op.device_indices,
                    layer_id, self.io_backend,
                )
            finish_event.record()
        self.ack_load_queue.append(HiCacheAck(start_event, finish_event, op.node_ids))
        device_module.current_stream().wait_event(finish_event)
