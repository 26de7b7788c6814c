import logging
from typing import Dict, List, Mapping, Tuple

import torch

from .constants import NUM_STAGING_SLOTS, STAGING_ALIGNMENT
from .device_utils import align, new_event

logger = logging.getLogger(__name__)

Layout = Dict[str, Tuple[int, torch.Size, torch.dtype]]


def build_layout(weights: Mapping[str, torch.Tensor]) -> Tuple[Layout, int]:
    layout: Layout = {}
    offset = 0
    for name, tensor in weights.items():
        layout[name] = (offset, tensor.shape, tensor.dtype)
        offset += align(tensor.numel() * tensor.element_size(), STAGING_ALIGNMENT)
    return layout, offset


class StagingArena:
    """A fixed set of device byte buffers that offloaded modules are streamed into."""

    def __init__(self, capacity_bytes: int, device: torch.device):
        self.device = device
        self.slots: List[torch.Tensor] = [
            torch.empty(capacity_bytes, dtype=torch.uint8, device=device) for _ in range(NUM_STAGING_SLOTS)
        ]
        self.loaded = [new_event(device) for _ in range(NUM_STAGING_SLOTS)]
        self.released = [new_event(device) for _ in range(NUM_STAGING_SLOTS)]
        logger.info("Staging arena: %d x %.1f MiB on %s", NUM_STAGING_SLOTS, capacity_bytes / 2**20, device)

    def views(self, slot: int, layout: Layout) -> Dict[str, torch.Tensor]:
        buf = self.slots[slot]
        out = {}
        for name, (offset, shape, dtype) in layout.items():
            nbytes = shape.numel() * torch.empty((), dtype=dtype).element_size()
            out[name] = buf[offset : offset + nbytes].view(dtype).view(shape)
        return out

    def load(self, slot: int, layout: Layout, weights_map: Mapping[str, torch.Tensor]) -> Dict[str, torch.Tensor]:
        views = self.views(slot, layout)
        for name, view in views.items():
            view.copy_(weights_map[name], non_blocking=True)
        return views
