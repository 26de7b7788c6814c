"""Autograd glue: mark group boundaries around an offloaded module."""

import torch
from torch import nn
from torch.autograd.graph import saved_tensors_hooks

from .manager import ChunkOffloadHandler

_MANAGER = None


def get_offload_manager() -> ChunkOffloadHandler:
    global _MANAGER
    if _MANAGER is None:
        _MANAGER = ChunkOffloadHandler()
    return _MANAGER


class GroupStartFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, tensor, name):
        ctx.group = get_offload_manager().start_group(name)
        return tensor.view_as(tensor)

    @staticmethod
    def backward(ctx, grad):
        get_offload_manager().on_group_finish_backward(ctx.group)
        return grad, None


class GroupCommitFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, tensor):
        mgr = get_offload_manager()
        ctx.group = mgr._groups[-1]
        mgr.on_group_commit_forward(ctx.group)
        return tensor.view_as(tensor)

    @staticmethod
    def backward(ctx, grad):
        get_offload_manager().on_group_commit_backward(ctx.group)
        return grad


class OffloadedLinearProj(nn.Module):
    def __init__(self, hidden: int):
        super().__init__()
        self.linear_proj = nn.Linear(hidden, hidden)

    def forward(self, core_attn_out: torch.Tensor) -> torch.Tensor:
        mgr = get_offload_manager()
        core_attn_out = GroupStartFunction.apply(core_attn_out, "attn_proj")
        with saved_tensors_hooks(mgr.tensor_push, mgr.tensor_pop):
            output = self.linear_proj(core_attn_out)
        return GroupCommitFunction.apply(output)
