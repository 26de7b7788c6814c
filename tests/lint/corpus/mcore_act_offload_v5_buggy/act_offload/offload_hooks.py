# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from typing import List, Optional

import torch

_HANDLER = None


def set_offload_handler(handler) -> None:
    global _HANDLER
    _HANDLER = handler


def get_offload_handler():
    return _HANDLER


class GroupStartFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, tensor, name):
        ctx.name = name
        get_offload_handler().on_group_start_forward(name)
        return tensor.view_as(tensor)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, None


class GroupCommitFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, tensor, name):
        ctx.name = name
        get_offload_handler().on_group_commit_forward(name)
        return tensor.view_as(tensor)

    @staticmethod
    def backward(ctx, grad_output):
        get_offload_handler().on_group_commit_backward(ctx.name)
        return grad_output, None


def group_prefetch_offload_start(tensor: torch.Tensor, name: str) -> torch.Tensor:
    return GroupStartFunction.apply(tensor, name)


def group_prefetch_offload_commit(
    output: torch.Tensor, name: str, release_tensors: Optional[List[torch.Tensor]] = None
) -> torch.Tensor:
    output = GroupCommitFunction.apply(output, name)
    get_offload_handler().release_group(name)
    if release_tensors:
        for t in release_tensors:
            t.untyped_storage().resize_(0)
    return output


class OffloadContext(torch.autograd.graph.saved_tensors_hooks):
    def __init__(self):
        handler = get_offload_handler()
        super().__init__(handler.tensor_push, handler.tensor_pop)
