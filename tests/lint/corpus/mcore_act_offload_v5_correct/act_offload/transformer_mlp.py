# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
import contextlib

import torch
import torch.nn.functional as F

from .offload_hooks import OffloadContext, group_prefetch_offload_commit, group_prefetch_offload_start


class OffloadedMLP(torch.nn.Module):
    def __init__(self, hidden_size: int, ffn_hidden_size: int, offload_mlp: bool = True):
        super().__init__()
        self.linear_fc1 = torch.nn.Linear(hidden_size, ffn_hidden_size, bias=False)
        self.linear_fc2 = torch.nn.Linear(ffn_hidden_size, hidden_size, bias=False)
        self.offload_mlp = offload_mlp

    def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
        offload_context = contextlib.nullcontext()
        if self.offload_mlp:
            hidden_states = group_prefetch_offload_start(hidden_states, name="expert_fc1")
            offload_context = OffloadContext()
        with offload_context:
            intermediate = self.linear_fc1(hidden_states)
            intermediate = F.gelu(intermediate)
            output = self.linear_fc2(intermediate)
        if self.offload_mlp:
            output = group_prefetch_offload_commit(output, name="expert_fc1")
        return output
