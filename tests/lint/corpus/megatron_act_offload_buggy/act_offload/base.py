"""Saved-tensor hooks and the group-commit autograd function used for activation offloading."""
from __future__ import annotations

from typing import Any

import torch
from torch.autograd.graph import saved_tensors_hooks


class OffloadHandler:
    """Interface between the saved-tensor hooks and the offloading policy."""

    def tensor_push(self, tensor: torch.Tensor, **kwargs) -> Any:
        raise NotImplementedError

    def tensor_pop(self, tensor_tag: Any, **kwargs) -> torch.Tensor:
        raise NotImplementedError

    def on_group_commit_forward(self) -> None:
        raise NotImplementedError

    def on_group_commit_backward(self) -> None:
        raise NotImplementedError


class CpuOffloadSavedTensorHook(saved_tensors_hooks):
    def __init__(self, offload_handler: OffloadHandler) -> None:
        self.offload_handler = offload_handler
        super().__init__(self.on_save_for_backward, self.on_get_saved_tensor)

    def on_save_for_backward(self, tensor: torch.Tensor) -> Any:
        return self.offload_handler.tensor_push(tensor)

    def on_get_saved_tensor(self, saved_state: Any) -> torch.Tensor:
        return self.offload_handler.tensor_pop(saved_state)


class GroupCommitFunction(torch.autograd.Function):
    """Identity op that marks the end of an offload group in both passes."""

    @staticmethod
    def forward(ctx, tensor, cpu_offload_handler):
        cpu_offload_handler.on_group_commit_forward()
        ctx.cpu_offload_handler = cpu_offload_handler
        return tensor

    @staticmethod
    def backward(ctx, grad_output):
        ctx.cpu_offload_handler.on_group_commit_backward()
        return grad_output, None


def group_prefetch_offload_commit(tensor: torch.Tensor, handler: OffloadHandler) -> torch.Tensor:
    return GroupCommitFunction.apply(tensor, handler)
