"""A layer stack whose activations are offloaded group by group."""

import torch

from .hooks import get_cpu_offload_context, group_prefetch_offload_commit


class OffloadedStack(torch.nn.Module):
    def __init__(self, layers, num_offload_groups, slot_numel):
        super().__init__()
        self.layers = torch.nn.ModuleList(layers)
        self.offload_ctx, self.handler = get_cpu_offload_context(num_offload_groups, slot_numel)

    def forward(self, hidden):
        for layer in self.layers:
            with self.offload_ctx:
                hidden = layer(hidden)
            hidden = group_prefetch_offload_commit(hidden, self.handler)
        return hidden
