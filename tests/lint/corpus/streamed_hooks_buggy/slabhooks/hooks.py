import logging
from typing import Any, Optional

import torch
import torch.nn as nn

from .slab import SlabRing
from .utils import ParamSlice, bind_views

logger = logging.getLogger(__name__)


class StreamedOffloadHook:
    """
    Keeps a block's weights in pinned host memory and streams them into a slab of the
    ring right before the block runs. While block ``i`` computes, block ``i + 1`` is
    copied into the next slab on the transfer stream.
    """

    def __init__(
        self,
        index: int,
        host_flat: torch.Tensor,
        layout: list[ParamSlice],
        ring: SlabRing,
        transfer_stream: Any,
        dev_mod: Any,
        execution_device: torch.device,
    ) -> None:
        self.index = index
        self.host_flat = host_flat
        self.layout = layout
        self.ring = ring
        self.transfer_stream = transfer_stream
        self.dev_mod = dev_mod
        self.execution_device = execution_device
        self.next_hook: Optional["StreamedOffloadHook"] = None

    def __repr__(self) -> str:
        return f"StreamedOffloadHook(index={self.index}, numel={self.host_flat.numel()})"

    def prefetch(self) -> None:
        slot = self.ring.slot(self.index)
        if slot.owner == self.index:
            return
        self.transfer_stream.wait_event(slot.loaded)
        with self.dev_mod.stream(self.transfer_stream):
            # expect: KVG004
            slot.flat[: self.host_flat.numel()].copy_(self.host_flat, non_blocking=True)
            slot.loaded.record(self.transfer_stream)
        slot.owner = self.index

    def pre_forward(self, module: nn.Module, args: tuple) -> None:
        self.prefetch()
        slot = self.ring.slot(self.index)
        compute = self.dev_mod.current_stream(self.execution_device)
        compute.wait_event(slot.loaded)
        bind_views(module, slot.flat, self.layout)
        if self.next_hook is not None and len(self.ring.slots) > 1:
            self.next_hook.prefetch()
        return None

    def post_forward(self, module: nn.Module, args: tuple, output: Any) -> Any:
        slot = self.ring.slot(self.index)
        slot.consumed.record(self.dev_mod.current_stream(self.execution_device))
        return output
