"""Autograd markers around each transformer layer, in the shape of Megatron's
group_prefetch_offload_start / group_prefetch_offload_commit: identity functions whose forward and
backward tell the chunk handler where a layer begins and ends."""

import torch

from actoffload.handler import ChunkOffloadHandler
from actoffload.manager import OffloadManager


class GroupStart(torch.autograd.Function):
    @staticmethod
    def forward(ctx, tensor, handler):
        ctx.handler = handler
        handler.on_group_start_forward()
        return tensor

    @staticmethod
    def backward(ctx, grad):
        ctx.handler.on_group_commit_backward()
        return grad, None


class GroupCommit(torch.autograd.Function):
    @staticmethod
    def forward(ctx, tensor, handler):
        ctx.handler = handler
        handler.on_group_commit_forward()
        return tensor

    @staticmethod
    def backward(ctx, grad):
        ctx.handler.on_group_start_backward()
        return grad, None


class OffloadedBlock(torch.nn.Module):
    def __init__(self, layers, staging_numel):
        super().__init__()
        self.layers = torch.nn.ModuleList(layers)
        self.staging_numel = staging_numel

    def forward(self, hidden):
        manager = OffloadManager.get_instance()
        handler = ChunkOffloadHandler(len(self.layers), self.staging_numel)
        manager.push(handler)
        for layer in self.layers:
            hidden = GroupStart.apply(hidden, handler)
            with manager:
                hidden = layer(hidden)
            hidden = GroupCommit.apply(hidden, handler)
        return hidden
