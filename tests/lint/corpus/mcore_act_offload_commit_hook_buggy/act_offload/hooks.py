# Copyright (c) 2024, NVIDIA CORPORATION. All rights reserved.
"""Saved-tensor hooks and the commit autograd function driving the handler."""

import contextlib
from typing import Any, Callable, Tuple

import torch

from .handler import AsyncDoubleBufferGroupOffloadHandler


class CpuOffloadHookWithOffloadHandler(torch.autograd.graph.saved_tensors_hooks):

    def __init__(self, offload_handler: AsyncDoubleBufferGroupOffloadHandler) -> None:
        self.offload_handler = offload_handler
        super().__init__(self.on_save_for_backward, self.on_get_saved_tensor)

    def on_save_for_backward(self, tensor: torch.Tensor) -> Any:
        return self.offload_handler.tensor_push(tensor)

    def on_get_saved_tensor(self, saved_state: Any) -> torch.Tensor:
        return self.offload_handler.tensor_pop(saved_state)


class GroupCommitFunction(torch.autograd.Function):

    @staticmethod
    def forward(ctx, tensor: torch.Tensor, cpu_offload_handler: AsyncDoubleBufferGroupOffloadHandler):
        cpu_offload_handler.on_group_commit_forward()
        ctx.cpu_offload_handler = cpu_offload_handler
        return tensor

    @staticmethod
    def backward(ctx, grad_output: torch.Tensor):
        ctx.cpu_offload_handler.on_group_commit_backward()
        return grad_output, None


def get_cpu_offload_context(enabled: bool, num_layers: int, offload_layers: int
                            ) -> Tuple[contextlib.AbstractContextManager, Callable[[torch.Tensor], torch.Tensor]]:
    if not enabled:
        return contextlib.nullcontext(), lambda t: t
    handler = AsyncDoubleBufferGroupOffloadHandler(num_offload_group=offload_layers, num_model_group=num_layers)

    def group_prefetch_offload_commit(tensor: torch.Tensor) -> torch.Tensor:
        return GroupCommitFunction.apply(tensor, handler)

    return CpuOffloadHookWithOffloadHandler(handler), group_prefetch_offload_commit
