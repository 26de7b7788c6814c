import contextlib

import torch
import torch.nn.functional as F

from .config import ActivationOffloadConfig
from .manager import PipelineOffloadManager


class OffloadableMLP(torch.nn.Module):
    """Transformer MLP block whose fc1 activations can be offloaded during the forward pass."""

    def __init__(self, config: ActivationOffloadConfig, hidden_size: int, ffn_hidden_size: int) -> None:
        super().__init__()
        self.linear_fc1 = torch.nn.Linear(hidden_size, ffn_hidden_size, bias=False)
        self.linear_fc2 = torch.nn.Linear(ffn_hidden_size, hidden_size, bias=False)
        self.offload_fc1 = "mlp_fc1" in config.offload_modules

    def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
        offload_context = contextlib.nullcontext()
        manager = None
        if self.offload_fc1:
            manager = PipelineOffloadManager.get_instance()
            manager.group_start("mlp_fc1")
            offload_context = manager
        with offload_context:
            intermediate = self.linear_fc1(hidden_states)
            intermediate = F.gelu(intermediate)
        if manager is not None:
            manager.group_commit()
        return self.linear_fc2(intermediate)
