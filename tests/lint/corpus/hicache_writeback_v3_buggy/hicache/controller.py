from __future__ import annotations

import logging
from typing import List, NamedTuple, Optional

import torch

from hicache.consts import HICACHE_IO_BACKEND_DIRECT, WRITE_POLICIES
from hicache.transfer import L2Transfer, L2TransferEngine, device_module

logger = logging.getLogger(__name__)


class CacheOperation:
    counter = 0

    def __init__(self, host_indices: torch.Tensor, device_indices: torch.Tensor, node_id: int):
        self.host_indices = host_indices
        self.device_indices = device_indices
        self.node_ids = [node_id]
        self.id = CacheOperation.counter
        CacheOperation.counter += 1

    @staticmethod
    def merge_ops(ops: List["CacheOperation"]) -> "CacheOperation":
        if len(ops) == 1:
            return ops[0]
        merged = CacheOperation(
            torch.cat([op.host_indices for op in ops]),
            torch.cat([op.device_indices for op in ops]),
            -1,
        )
        merged.node_ids = [nid for op in ops for nid in op.node_ids]
        return merged


class HiCacheAck(NamedTuple):
    start_event: object
    finish_event: object
    node_ids: List[int]


class HiCacheController:
    def __init__(
        self,
        token_to_kv_pool_allocator,
        mem_pool_host,
        page_size: int,
        write_policy: str = "write_through",
        io_backend: str = HICACHE_IO_BACKEND_DIRECT,
    ):
        if write_policy not in WRITE_POLICIES:
            raise ValueError(f"Invalid write policy: {write_policy}")
        self.mem_pool_device_allocator = token_to_kv_pool_allocator
        self.mem_pool_device = token_to_kv_pool_allocator.get_kvcache()
        self.mem_pool_host = mem_pool_host
        self.page_size = page_size
        self.write_policy = write_policy
        self.layer_num = self.mem_pool_device.layer_num
        self.engine = L2TransferEngine(io_backend)
        self.write_queue: List[CacheOperation] = []
        self.load_queue: List[CacheOperation] = []
        self.ack_write_queue: List[HiCacheAck] = []
        self.ack_load_queue: List[HiCacheAck] = []

    def write(self, device_indices: torch.Tensor, node_id: int = -1) -> Optional[torch.Tensor]:
        """Back up device KV slots (host-side index tensor) into the host pool."""
        host_indices = self.mem_pool_host.alloc(len(device_indices))
        if host_indices is None:
            return None
        self.write_queue.append(CacheOperation(host_indices, device_indices, node_id))
        self.start_writing()
        return host_indices

    def start_writing(self) -> None:
        if not self.write_queue:
            return
        op = CacheOperation.merge_ops(self.write_queue)
        self.write_queue.clear()
        completion = self.engine.submit_device_to_host(
            [L2Transfer(self.mem_pool_host, self.mem_pool_device, op.host_indices, op.device_indices)]
        )
        self.ack_write_queue.append(
            HiCacheAck(completion.start_event, completion.finish_event, op.node_ids)
        )

    def load(self, host_indices: torch.Tensor, node_id: int = -1) -> Optional[torch.Tensor]:
        device_indices = self.mem_pool_device_allocator.alloc(len(host_indices))
        if device_indices is None:
            return None
        self.load_queue.append(CacheOperation(host_indices, device_indices, node_id))
        return device_indices

    def start_loading(self) -> int:
        if not self.load_queue:
            return -1
        op = CacheOperation.merge_ops(self.load_queue)
        self.load_queue.clear()
        start_event = device_module.Event()
        start_event.record()
        completion = self.engine.submit_host_to_device(
            [L2Transfer(self.mem_pool_host, self.mem_pool_device, op.host_indices, op.device_indices)],
            layer_num=self.layer_num,
            start_event=start_event,
        )
        self.ack_load_queue.append(
            HiCacheAck(completion.start_event, completion.finish_event, op.node_ids)
        )
        return op.id

    def writing_check(self) -> List[int]:
        finished: List[int] = []
        while self.ack_write_queue and self.ack_write_queue[0].finish_event.query():
            ack = self.ack_write_queue.pop(0)
            finished.extend(ack.node_ids)
        return finished
