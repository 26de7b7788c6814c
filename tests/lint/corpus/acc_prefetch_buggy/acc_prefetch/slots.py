"""A fixed set of flat GPU buffers that offloaded layers take turns living in."""
from typing import Optional

import torch

from .constants import NUM_WEIGHT_SLOTS


class WeightSlotPool:
    def __init__(self, numel: int, dtype: torch.dtype, device, num_slots: int = NUM_WEIGHT_SLOTS):
        self.device = torch.device(device)
        self.buffers = [torch.empty(numel, dtype=dtype, device=self.device) for _ in range(num_slots)]
        self.release_events: dict[int, Optional[torch.cuda.Event]] = {i: None for i in range(num_slots)}

    def slot_for(self, layer_idx: int) -> int:
        return layer_idx % len(self.buffers)

    def mark_released(self, slot: int) -> None:
        """Called after the forward of the layer living in `slot` has been queued."""
        event = torch.cuda.Event()
        event.record(torch.cuda.current_stream(self.device))
        self.release_events[slot] = event

    def claim(self, slot: int, stream: torch.cuda.Stream) -> torch.Tensor:
        """Hand out the buffer of `slot` for a load issued on `stream`."""
        return self.buffers[slot]
