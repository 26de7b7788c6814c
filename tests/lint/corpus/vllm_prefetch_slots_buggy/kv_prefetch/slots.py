# SPDX-License-Identifier: Apache-2.0
import threading
from dataclasses import dataclass, field
from typing import Optional

import torch


@dataclass
class LoadSlot:
    index: int
    buffer: torch.Tensor  # [max_blocks_per_slot, block_bytes] int8 on device
    loaded_event: torch.Event
    released_event: torch.Event
    req_id: Optional[str] = None
    num_blocks: int = 0


@dataclass
class SlotRing:
    slots: list[LoadSlot]
    _free: list[int] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def create(cls, num_slots: int, max_blocks: int, block_bytes: int,
               device: torch.device) -> "SlotRing":
        slots = [
            LoadSlot(
                index=i,
                buffer=torch.empty((max_blocks, block_bytes), dtype=torch.int8, device=device),
                loaded_event=torch.Event(device=device),
                released_event=torch.Event(device=device),
            )
            for i in range(num_slots)
        ]
        return cls(slots, list(range(num_slots)))

    def acquire(self, req_id: str) -> Optional[LoadSlot]:
        with self._lock:
            if not self._free:
                return None
            slot = self.slots[self._free.pop(0)]
        slot.req_id = req_id
        return slot

    def release(self, slot: LoadSlot) -> None:
        slot.req_id = None
        with self._lock:
            self._free.append(slot.index)
