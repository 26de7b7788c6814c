"""Transformer block that offloads its activations during forward."""

import torch
from torch import nn

from .hooks import get_cpu_offload_context


class OffloadedTransformerBlock(nn.Module):
    def __init__(self, hidden: int, num_layers: int, offload_layers: int):
        super().__init__()
        self.layers = nn.ModuleList(
            nn.Sequential(nn.LayerNorm(hidden), nn.Linear(hidden, 4 * hidden), nn.GELU(),
                          nn.Linear(4 * hidden, hidden))
            for _ in range(num_layers)
        )
        self.offload_context, self.group_commit = get_cpu_offload_context(
            enabled=offload_layers > 0, num_layers=offload_layers, model_layers=num_layers
        )

    def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            with self.offload_context:
                hidden_states = hidden_states + layer(hidden_states)
            hidden_states = self.group_commit(hidden_states)
        return hidden_states
