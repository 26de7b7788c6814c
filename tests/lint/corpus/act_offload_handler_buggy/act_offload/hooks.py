# Copyright (c) 2024, NVIDIA CORPORATION. All rights reserved.
import contextlib
from typing import Any

import torch
from torch.autograd.graph import saved_tensors_hooks

from .config import ActivationOffloadConfig
from .handler import GroupOffloadHandler


class CpuOffloadHookWithOffloadHandler(saved_tensors_hooks):
    """Routes tensors saved for backward through an offload handler."""

    def __init__(self, offload_handler: GroupOffloadHandler, handler_extra_kwargs=None):
        self.offload_handler = offload_handler
        self.handler_extra_kwargs = handler_extra_kwargs or {}
        super().__init__(self.on_save_for_backward, self.on_get_saved_tensor)

    def on_save_for_backward(self, tensor: torch.Tensor) -> Any:
        return self.offload_handler.tensor_push(tensor, **self.handler_extra_kwargs)

    def on_get_saved_tensor(self, saved_state: Any) -> torch.Tensor:
        return self.offload_handler.tensor_pop(saved_state, **self.handler_extra_kwargs)


class _GroupCommitFunction(torch.autograd.Function):

    @staticmethod
    def forward(ctx, tensor, cpu_offload_handler):
        cpu_offload_handler.on_group_commit_forward()
        ctx.cpu_offload_handler = cpu_offload_handler
        return tensor.view_as(tensor)

    @staticmethod
    def backward(ctx, grad_output):
        ctx.cpu_offload_handler.on_group_commit_backward()
        return grad_output, None


def get_cpu_offload_context(enabled: bool, config: ActivationOffloadConfig):
    if not enabled:
        return contextlib.nullcontext(), lambda tensor: tensor
    handler = GroupOffloadHandler(config)

    def group_prefetch_offload_commit(tensor: torch.Tensor) -> torch.Tensor:
        return _GroupCommitFunction.apply(tensor, handler)

    return CpuOffloadHookWithOffloadHandler(handler), group_prefetch_offload_commit
