"""Saved-tensor hooks and the group commit Function that drive the offload handler."""

import torch

from .handler import GroupOffloadHandler


class CpuOffloadSavedTensorHook:
    def __init__(self, handler):
        self.handler = handler
        self.inside_context = False

    def __enter__(self):
        self.inside_context = True
        torch._C._autograd._push_saved_tensors_default_hooks(
            self.on_save_for_backward, self.on_get_saved_tensor
        )
        return self

    def __exit__(self, *args):
        self.inside_context = False
        torch._C._autograd._pop_saved_tensors_default_hooks()

    def on_save_for_backward(self, tensor):
        return self.handler.tensor_push(tensor)

    def on_get_saved_tensor(self, tag):
        return self.handler.tensor_pop(tag)


class GroupCommitFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, tensor, handler):
        handler.on_group_commit_forward()
        ctx.handler = handler
        return tensor

    @staticmethod
    def backward(ctx, grad_output):
        ctx.handler.on_group_commit_backward()
        return grad_output, None


group_prefetch_offload_commit = GroupCommitFunction.apply


def get_cpu_offload_context(num_offload_groups, slot_numel):
    handler = GroupOffloadHandler(num_offload_groups, slot_numel)
    return CpuOffloadSavedTensorHook(handler), handler
