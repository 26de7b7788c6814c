from dataclasses import dataclass, field
from typing import List

import torch

from .hooks import ModelHook


@dataclass
class SlotRing:
    """Two device slots shared by all streamed layers, and the events that hand them around."""

    numel: int
    dtype: torch.dtype
    device: torch.device
    stream: torch.cuda.Stream = field(default_factory=torch.cuda.Stream)
    buffers: List[torch.Tensor] = field(default_factory=list)
    loaded: List[torch.cuda.Event] = field(default_factory=list)
    released: List[torch.cuda.Event] = field(default_factory=list)

    def __post_init__(self):
        self.buffers = [torch.empty(self.numel, dtype=self.dtype, device=self.device) for _ in range(2)]
        self.loaded = [torch.cuda.Event() for _ in range(2)]
        self.released = [torch.cuda.Event() for _ in range(2)]


class StreamedWeightsHook(ModelHook):
    def __init__(self, ring: SlotRing, index: int, host_flat: torch.Tensor, offsets):
        self.ring = ring
        self.index = index
        self.slot = index % 2
        self.host_flat = host_flat
        self.offsets = offsets  # name -> (start, shape)
        self.next_hook = None

    def init_hook(self, module):
        self.module = module
        return module

    def _bind(self, module, flat):
        for name, param in module.named_parameters(recurse=True):
            start, shape = self.offsets[name]
            n = param.numel()
            param.data = flat[start:start + n].view(shape)

    def fetch(self):
        """Start copying this layer's weights into its slot, on the ring's stream."""
        ring = self.ring
        # the slot still holds the weights of the layer two back; its kernels may be queued
        ring.stream.wait_event(ring.released[self.slot])
        with torch.cuda.stream(ring.stream):
            ring.buffers[self.slot].copy_(self.host_flat, non_blocking=True)
            ring.loaded[self.slot].record(ring.stream)

    def pre_forward(self, module, *args, **kwargs):
        torch.cuda.current_stream().wait_event(self.ring.loaded[self.slot])
        self._bind(module, self.ring.buffers[self.slot])
        if self.next_hook is not None:
            self.next_hook.fetch()
        return args, kwargs

    def post_forward(self, module, output):
        # everything this layer launched reads its slot; the next fetch into it must wait for them
        self.ring.released[self.slot].record()
        return output
