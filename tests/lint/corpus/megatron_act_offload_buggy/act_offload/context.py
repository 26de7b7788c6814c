"""Entry point used by the transformer block to enable activation offloading."""
from __future__ import annotations

import contextlib
from typing import Callable

import torch

from .base import CpuOffloadSavedTensorHook, group_prefetch_offload_commit
from .group_handler import AsyncGroupOffloadHandler


def get_cpu_offload_context(
    enabled: bool = False,
    num_layers: int = 1,
    model_layers: int = 1,
) -> tuple[contextlib.AbstractContextManager, Callable[[torch.Tensor], torch.Tensor]]:
    """Returns the saved-tensor context and the commit function for one layer stack.

    ``num_layers`` of the ``model_layers`` groups are offloaded; the remaining (last) groups
    stay resident because their backward starts immediately.
    """
    if not enabled:
        return contextlib.nullcontext(), lambda tensor: tensor
    if num_layers >= model_layers:
        raise ValueError(f"cannot offload {num_layers} of {model_layers} layers")

    handler = AsyncGroupOffloadHandler(num_offload_groups=num_layers)

    def group_commit(tensor: torch.Tensor) -> torch.Tensor:
        return group_prefetch_offload_commit(tensor, handler)

    return CpuOffloadSavedTensorHook(handler), group_commit


class OffloadedLayerStack(torch.nn.Module):
    def __init__(self, layers: torch.nn.ModuleList, num_offload_layers: int) -> None:
        super().__init__()
        self.layers = layers
        self.offload_context, self.group_commit = get_cpu_offload_context(
            enabled=num_offload_layers > 0, num_layers=num_offload_layers, model_layers=len(layers)
        )

    def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            with self.offload_context:
                hidden_states = layer(hidden_states)
            hidden_states = self.group_commit(hidden_states)
        return hidden_states
