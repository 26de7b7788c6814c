import torch
from torch.autograd.graph import saved_tensors_hooks

from .handler import AsyncGroupOffloadHandler


class GroupCommitFunction(torch.autograd.Function):
    """Identity whose forward commits the current group's offload and whose backward triggers
    the prefetch of the group below."""

    @staticmethod
    def forward(ctx, tensor, handler):
        handler.on_group_commit_forward()
        ctx.handler = handler
        return tensor.view_as(tensor)

    @staticmethod
    def backward(ctx, grad_output):
        ctx.handler.on_group_commit_backward()
        return grad_output, None


class CpuOffloadHook(saved_tensors_hooks):
    def __init__(self, handler):
        self.handler = handler
        super().__init__(handler.tensor_push, handler.tensor_pop)


def get_cpu_offload_context(num_layers):
    handler = AsyncGroupOffloadHandler(num_offload_groups=num_layers - 1)

    def commit(tensor):
        return GroupCommitFunction.apply(tensor, handler)

    return CpuOffloadHook(handler), commit, handler


def forward_backward(layers, hidden, loss_fn):
    offload_ctx, commit, _ = get_cpu_offload_context(len(layers))
    for layer in layers:
        with offload_ctx:
            hidden = layer(hidden)
        hidden = commit(hidden)
    loss = loss_fn(hidden)
    loss.backward()
    return loss.detach()
