# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from contextlib import nullcontext

import torch
import torch.nn.functional as F

from .offload_config import ActivationOffloadConfig
from .offload_manager import ChunkOffloadHandler, PipelineOffloadManager, group_commit


class MLP(torch.nn.Module):
    def __init__(self, hidden_size: int, ffn_hidden_size: int, config: ActivationOffloadConfig):
        super().__init__()
        self.config = config
        self.linear_fc1 = torch.nn.Linear(hidden_size, ffn_hidden_size, bias=False)
        self.linear_fc2 = torch.nn.Linear(ffn_hidden_size, hidden_size, bias=False)
        self.activation_func = F.gelu
        self.offload_mlp = config.fine_grained_activation_offloading and "mlp" in config.offload_modules
        self._offload_handler = (
            ChunkOffloadHandler(PipelineOffloadManager.get_instance(config)) if self.offload_mlp else None
        )

    def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
        handler = self._offload_handler if (self.training and self.offload_mlp) else None
        if handler is not None:
            handler.group_start("mlp")
        with handler if handler is not None else nullcontext():
            intermediate = self.linear_fc1(hidden_states)
            intermediate = self.activation_func(intermediate)
            output = self.linear_fc2(intermediate)
        if handler is not None:
            output = group_commit(output, handler)
        return output
