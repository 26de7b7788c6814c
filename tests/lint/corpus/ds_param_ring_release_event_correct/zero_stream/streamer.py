"""Runs a stack of MLP blocks whose weights are streamed through the ring."""

import torch
import torch.nn.functional as F

from .config import OffloadParamConfig
from .param_ring import ParamRing


def _flatten_to_pinned(block):
    flat = torch.cat([p.detach().reshape(-1).cpu() for p in block.values()])
    return flat.pin_memory()


class StreamedMLPStack:
    def __init__(self, blocks, config: OffloadParamConfig = None):
        config = config or OffloadParamConfig()
        shapes = [[(name, p.shape) for name, p in block.items()] for block in blocks]
        host_flats = [_flatten_to_pinned(block) for block in blocks]
        self.num_layers = len(blocks)
        self.ring = ParamRing(shapes, host_flats, config)
        self.lookahead = config.buffer_count - 1

    @torch.no_grad()
    def forward(self, x):
        for i in range(min(self.lookahead, self.num_layers)):
            self.ring.prefetch(i)
        for i in range(self.num_layers):
            w = self.ring.acquire(i)
            h = F.gelu(F.linear(F.layer_norm(x, x.shape[-1:]), w["fc1.weight"], w["fc1.bias"]))
            x = x + F.linear(h, w["fc2.weight"], w["fc2.bias"])
            self.ring.release(i)
            if i + self.lookahead < self.num_layers:
                self.ring.prefetch(i + self.lookahead)
        return x
