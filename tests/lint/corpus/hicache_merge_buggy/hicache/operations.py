from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, List, NamedTuple, Optional


class HiCacheAck(NamedTuple):
    finish_event: Any
    node_ids: List[int]
    num_pages: int = 0


@dataclass
class CacheOperation:
    """One device->host backup request produced by the scheduler thread."""

    host_pages: List[int]
    device_pages: List[int]
    node_ids: List[int]
    ready_events: List[Any]
    priority: Optional[int] = None
    id: int = field(default=0, init=False)

    counter = 0

    def __post_init__(self) -> None:
        self.id = CacheOperation.counter
        CacheOperation.counter += 1
        if self.priority is None:
            self.priority = self.id

    def __lt__(self, other: CacheOperation) -> bool:
        return self.priority < other.priority

    @staticmethod
    def merge_ops(ops: List[CacheOperation]) -> CacheOperation:
        assert ops
        if len(ops) == 1:
            return ops[0]
        ordered = sorted(ops)
        host_pages: List[int] = []
        device_pages: List[int] = []
        node_ids: List[int] = []
        for op in ordered:
            host_pages.extend(op.host_pages)
            device_pages.extend(op.device_pages)
            node_ids.extend(op.node_ids)
        ready_events = list(ordered[0].ready_events)
        return CacheOperation(
            host_pages,
            device_pages,
            node_ids,
            ready_events,
            priority=ordered[0].priority,
        )
