from __future__ import annotations

import logging
from typing import List, Optional

import torch

logger = logging.getLogger(__name__)


class CacheOperation:
    counter = 0

    def __init__(
        self,
        host_indices: torch.Tensor,
        device_indices: torch.Tensor,
        node_id: int,
        priority: Optional[int] = None,
        ready_event: Optional[torch.cuda.Event] = None,
    ):
        self.host_indices = host_indices
        self.device_indices = device_indices
        self.node_ids = [node_id]
        self.id = CacheOperation.counter
        CacheOperation.counter += 1
        self.priority = priority if priority is not None else self.id
        self.ready_event = ready_event

    @staticmethod
    def merge_ops(ops: List["CacheOperation"]) -> "CacheOperation":
        if len(ops) == 1:
            return ops[0]
        host_indices = torch.cat([op.host_indices for op in ops])
        device_indices = torch.cat([op.device_indices for op in ops])
        node_ids: List[int] = []
        for op in ops:
            node_ids.extend(op.node_ids)
        merged = CacheOperation(
            host_indices,
            device_indices,
            -1,
            priority=min(op.priority for op in ops),
            ready_event=ops[-1].ready_event,
        )
        merged.node_ids = node_ids
        logger.debug("merged %d write ops into op %d", len(ops), merged.id)
        return merged

    def __lt__(self, other: "CacheOperation") -> bool:
        return self.priority < other.priority
