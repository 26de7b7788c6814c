from __future__ import annotations

import logging
from typing import List, NamedTuple, Optional

import torch

from hicache.memory_pool import MHATokenToKVPool
from hicache.memory_pool_host import MHATokenToKVPoolHost
from hicache.utils import get_device_module

logger = logging.getLogger(__name__)

device_module = get_device_module()


class CacheOperation:
    counter = 0

    def __init__(
        self,
        host_indices: torch.Tensor,
        device_indices: torch.Tensor,
        node_id: int,
        priority: Optional[int] = None,
    ):
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


class HiCacheController:
    def __init__(
        self,
        mem_pool_device: MHATokenToKVPool,
        mem_pool_host: MHATokenToKVPoolHost,
        write_policy: str = "write_through",
        enable_timing: bool = False,
    ):
        if write_policy not in ("write_through", "write_through_selective", "write_back"):
            raise ValueError(f"Invalid write policy: {write_policy}")
        self.mem_pool_device = mem_pool_device
        self.mem_pool_host = mem_pool_host
        self.write_policy = write_policy
        self.enable_timing = enable_timing
        self.write_queue: List[CacheOperation] = []
        self.ack_write_queue: List[HiCacheAck] = []
        self.write_stream = device_module.Stream()

    def write(
        self,
        device_indices: torch.Tensor,
        priority: Optional[int] = None,
        node_id: int = -1,
    ) -> Optional[torch.Tensor]:
        # the direct io backend walks host-side index lists
        assert not device_indices.is_cuda
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

        start_event = device_module.Event(enable_timing=self.enable_timing)
        finish_event = device_module.Event(enable_timing=self.enable_timing)
        start_event.record()
        with device_module.stream(self.write_stream):
            self.mem_pool_host.backup_from_device_all_layer(
                self.mem_pool_device, op.host_indices, op.device_indices
            )
            finish_event.record()
        self.ack_write_queue.append(HiCacheAck(start_event, finish_event, op.node_ids))

    def poll_write_acks(self) -> List[int]:
        done: List[int] = []
        while self.ack_write_queue and self.ack_write_queue[0].finish_event.query():
            ack = self.ack_write_queue.pop(0)
            if self.enable_timing:
                logger.debug(
                    "write-through of %d nodes took %.3f ms",
                    len(ack.node_ids),
                    ack.start_event.elapsed_time(ack.finish_event),
                )
            done.extend(ack.node_ids)
        return done
