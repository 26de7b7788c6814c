from __future__ import annotations

from typing import List, NamedTuple, Optional

import numpy as np
import torch

device_module = torch.get_device_module()


def page_runs(
    host_indices: torch.Tensor, device_indices: torch.Tensor
) -> List[tuple[int, int, int]]:
    """Split paired index lists into (host_start, device_start, length) runs."""
    h = host_indices.numpy()
    d = device_indices.numpy()
    if len(h) == 0:
        return []
    breaks = np.nonzero((np.diff(h) != 1) | (np.diff(d) != 1))[0] + 1
    starts = np.concatenate(([0], breaks))
    ends = np.concatenate((breaks, [len(h)]))
    return [(int(h[s]), int(d[s]), int(e - s)) for s, e in zip(starts, ends)]


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
        assert ops
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
    num_tokens: int
