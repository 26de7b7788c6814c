"""Pinned host mirrors of the per-step outputs, one per in-flight step (the shape of
megatron-core's snapshot slots with their cpu_mirror)."""

from dataclasses import dataclass, field
from typing import Optional

import torch


@dataclass
class StepMirror:
    slot_id: int
    new_tokens: torch.Tensor
    finished: torch.Tensor
    lengths: torch.Tensor
    ready: torch.cuda.Event = field(default_factory=torch.cuda.Event)
    step_id: Optional[int] = None


class StepMirrorPool:
    def __init__(self, num_slots, max_requests):
        self.slots = [
            StepMirror(
                slot_id=i,
                new_tokens=torch.empty(max_requests, dtype=torch.int64, pin_memory=True),
                finished=torch.empty(max_requests, dtype=torch.uint8, pin_memory=True),
                lengths=torch.empty(max_requests, dtype=torch.int32, pin_memory=True),
            )
            for i in range(num_slots)
        ]
        self._next = 0

    def acquire(self, step_id):
        slot = self.slots[self._next]
        self._next = (self._next + 1) % len(self.slots)
        slot.step_id = step_id
        return slot
