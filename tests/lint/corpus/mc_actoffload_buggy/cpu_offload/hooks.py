"""Context managers that route saved tensors through an offload handler."""

import contextlib

import torch
from torch.autograd.graph import saved_tensors_hooks

from .handler import AsyncGroupOffloadHandler


class CpuOffloadHookWithOffloadHandler(saved_tensors_hooks):
    def __init__(self, offload_handler: AsyncGroupOffloadHandler):
        self.offload_handler = offload_handler
        super().__init__(self.on_save_for_backward, self.on_get_saved_tensor)

    def on_save_for_backward(self, tensor):
        return self.offload_handler.tensor_push(tensor)

    def on_get_saved_tensor(self, tag):
        return self.offload_handler.tensor_pop(tag)


class GroupCommitFunction(torch.autograd.Function):
    """Identity op that marks the end of an offload group in both directions."""

    @staticmethod
    def forward(ctx, tensor, handler):
        handler.on_group_commit_forward()
        ctx.handler = handler
        return tensor.view_as(tensor)

    @staticmethod
    def backward(ctx, grad_output):
        ctx.handler.on_group_commit_backward()
        return grad_output, None


group_prefetch_offload_commit = GroupCommitFunction.apply


def get_cpu_offload_context(enabled: bool, num_layers: int, model_layers: int):
    if not enabled:
        return contextlib.nullcontext(), lambda t: t
    handler = AsyncGroupOffloadHandler(num_offload_group=num_layers, num_model_group=model_layers)
    context = CpuOffloadHookWithOffloadHandler(offload_handler=handler)

    def sync_func(tensor):
        return group_prefetch_offload_commit(tensor, handler)

    return context, sync_func
