import logging
from typing import List, Optional

import torch

from .staging import StagingRing
from .utils import ParamLayout, bind_params

logger = logging.getLogger(__name__)


class PrefetchGroup:
    """
    Shares a two-slot staging ring between a sequence of offloaded layers. While layer `i` runs
    from one slot, layer `i + 1` is copied into the other.
    """

    def __init__(self, host_flats: List[torch.Tensor], layouts: List[ParamLayout], device: torch.device):
        self.host_flats = host_flats
        self.layouts = layouts
        self.device = device
        numel = max(flat.numel() for flat in host_flats)
        self.ring = StagingRing(device, numel, host_flats[0].dtype)
        self._slot = 0
        self._owner: List[Optional[int]] = [None, None]

    def compute_stream(self) -> torch.Stream:
        return torch.accelerator.current_stream(self.device)

    def activate(self, index: int, module: torch.nn.Module) -> None:
        slot = self._slot
        if self._owner[slot] != index:
            self.ring.load(slot, self.host_flats[index], after=self.ring.released[slot])
            self._owner[slot] = index
        self.compute_stream().wait_event(self.ring.loaded[slot])
        bind_params(module, self.ring.view(slot, self.host_flats[index].numel()), self.layouts[index])

        nxt = (index + 1) % len(self.host_flats)
        other = 1 - slot
        if self._owner[other] != nxt:
            self.ring.load(other, self.host_flats[nxt], after=self.ring.released[other])
            self._owner[other] = nxt

    def release(self, index: int) -> None:
        self.ring.released[self._slot].record(self.compute_stream())
        self._slot = 1 - self._slot
