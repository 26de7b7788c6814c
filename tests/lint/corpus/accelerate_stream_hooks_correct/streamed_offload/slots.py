from typing import Dict, List

import torch

from .utils import NUM_WEIGHT_SLOTS


class WeightSlots:
    """A small ring of device buffers that offloaded modules take turns to use.

    Module `i` of the offloaded sequence always uses slot `i % NUM_WEIGHT_SLOTS`.
    """

    def __init__(self, shapes: Dict[str, int], dtype: torch.dtype, device: torch.device):
        self.slots: List[Dict[str, torch.Tensor]] = [
            {name: torch.empty(numel, dtype=dtype, device=device) for name, numel in shapes.items()}
            for _ in range(NUM_WEIGHT_SLOTS)
        ]

    def for_index(self, index: int) -> Dict[str, torch.Tensor]:
        return self.slots[index % NUM_WEIGHT_SLOTS]
