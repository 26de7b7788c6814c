"""Preallocated device buffers that offloaded layers take turns to occupy."""
from typing import Dict

import torch

from .settings import NUM_WEIGHT_SLOTS, OFFLOAD_DTYPE


class WeightSlotPool:
    def __init__(self, max_numel: int, device: torch.device):
        self.device = device
        self.buffers = [
            torch.empty(max_numel, dtype=OFFLOAD_DTYPE, device=device) for _ in range(NUM_WEIGHT_SLOTS)
        ]
        self._released: Dict[int, torch.cuda.Event] = {}

    @staticmethod
    def slot_for(layer_idx: int) -> int:
        return layer_idx % NUM_WEIGHT_SLOTS

    def mark_released(self, slot: int) -> None:
        """Called once the last kernel reading `slot` has been queued."""
        event = torch.cuda.Event()
        event.record(torch.cuda.current_stream(self.device))
        self._released[slot] = event

    def wait_released(self, slot: int, stream: torch.cuda.Stream) -> None:
        event = self._released.get(slot)
        if event is not None:
            stream.wait_event(event)
