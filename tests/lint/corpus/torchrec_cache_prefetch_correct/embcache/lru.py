"""Host-side bookkeeping: which embedding row lives in which device cache slot."""
from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np


@dataclass
class PrefetchPlan:
    slots: np.ndarray
    load_ids: list[int] = field(default_factory=list)
    load_slots: list[int] = field(default_factory=list)
    evict_ids: list[int] = field(default_factory=list)
    evict_slots: list[int] = field(default_factory=list)


def coalesce_runs(slots: Sequence[int]) -> list[tuple[int, int, int]]:
    """Group (slot, position) pairs into (first_slot, first_position, length) runs."""
    runs: list[tuple[int, int, int]] = []
    for pos, slot in enumerate(slots):
        if runs:
            start, off, n = runs[-1]
            if start + n == slot and off + n == pos:
                runs[-1] = (start, off, n + 1)
                continue
        runs.append((slot, pos, 1))
    return runs


class LRUSlotMap:
    def __init__(self, num_slots: int) -> None:
        self.num_slots = num_slots
        self._slot_of: OrderedDict[int, int] = OrderedDict()
        self._free = list(range(num_slots - 1, -1, -1))

    def __len__(self) -> int:
        return len(self._slot_of)

    def _victim(self, protected: set[int]) -> tuple[int, int]:
        for row, slot in self._slot_of.items():
            if row not in protected:
                return row, slot
        raise RuntimeError("all cache slots are used by the current batch")

    def plan(self, ids: np.ndarray) -> PrefetchPlan:
        unique = np.unique(ids)
        if unique.size > self.num_slots:
            raise ValueError(f"batch touches {unique.size} rows, cache holds {self.num_slots}")
        protected = {int(r) for r in unique}
        plan = PrefetchPlan(slots=np.empty(0, dtype=np.int64))
        for row in protected:
            if row in self._slot_of:
                self._slot_of.move_to_end(row)
                continue
            if self._free:
                slot = self._free.pop()
            else:
                victim, slot = self._victim(protected)
                del self._slot_of[victim]
                plan.evict_ids.append(victim)
                plan.evict_slots.append(slot)
            self._slot_of[row] = slot
            plan.load_ids.append(row)
            plan.load_slots.append(slot)
        plan.slots = np.fromiter((self._slot_of[int(r)] for r in ids), dtype=np.int64, count=ids.size)
        return plan
