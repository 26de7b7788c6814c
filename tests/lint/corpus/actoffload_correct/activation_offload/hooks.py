# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
import torch
from torch.autograd.graph import saved_tensors_hooks

from .offload_handler import ChunkOffloadHandler


class ActivationOffloadContext(saved_tensors_hooks):
    """Routes tensors saved for backward inside the context through the handler."""

    def __init__(self, handler: ChunkOffloadHandler):
        self.handler = handler
        super().__init__(handler.tensor_push, handler.tensor_pop)


class GroupCommitFunction(torch.autograd.Function):
    """Identity op marking the end of an offload group in fprop (and its start in bprop)."""

    @staticmethod
    def forward(ctx, tensor: torch.Tensor, handler: ChunkOffloadHandler) -> torch.Tensor:
        handler.on_group_commit_forward()
        ctx.handler = handler
        return tensor.view_as(tensor)

    @staticmethod
    def backward(ctx, grad_output: torch.Tensor):
        ctx.handler.on_group_commit_backward()
        return grad_output, None


def group_prefetch_offload_commit(tensor: torch.Tensor, handler: ChunkOffloadHandler) -> torch.Tensor:
    return GroupCommitFunction.apply(tensor, handler)
