"""An MLP stack whose gated intermediate activations are offloaded between forward and
backward."""

import torch
import torch.nn.functional as F

from .handler import LayerActivationOffloader


class GatedMLP(torch.nn.Module):
    def __init__(self, hidden, ffn, layer_idx, offloader):
        super().__init__()
        self.layer_idx = layer_idx
        self.offloader = offloader
        self.gate_up = torch.nn.Linear(hidden, 2 * ffn, bias=False)
        self.down = torch.nn.Linear(ffn, hidden, bias=False)
        self.register_buffer("gate_scale", torch.ones(ffn))

    def forward(self, x):
        gate, up = self.gate_up(x).chunk(2, dim=-1)
        inter = F.silu(gate) * up
        inter.mul_(self.gate_scale)
        self.offloader.mark_ready(self.layer_idx)
        self.offloader.offload(self.layer_idx, inter)
        return x + self.down(inter)


class OffloadedStack(torch.nn.Module):
    def __init__(self, hidden, ffn, num_layers):
        super().__init__()
        self.offloader = LayerActivationOffloader(num_layers)
        self.layers = torch.nn.ModuleList(
            GatedMLP(hidden, ffn, i, self.offloader) for i in range(num_layers)
        )

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x

    def saved_activations(self, device):
        return [self.offloader.reload(i, device) for i in reversed(range(len(self.layers)))]
