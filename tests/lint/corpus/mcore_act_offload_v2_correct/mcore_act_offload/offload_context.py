# Copyright (c) 2024, NVIDIA CORPORATION. All rights reserved.
from contextlib import AbstractContextManager
from typing import Callable, Tuple

import torch

from .offload_config import ActivationOffloadConfig
from .offload_handler import AsyncGroupOffloadHandler


class CpuOffloadSavedTensorHook(AbstractContextManager):

    def __init__(self, handler: AsyncGroupOffloadHandler):
        self.handler = handler
        self._hooks = torch.autograd.graph.saved_tensors_hooks(self.handler.tensor_push, self.handler.tensor_pop)

    def __enter__(self):
        self._hooks.__enter__()
        return self

    def __exit__(self, *exc):
        return self._hooks.__exit__(*exc)


class GroupCommitFunction(torch.autograd.Function):
    """Identity op marking the end of a layer group in forward and its start in backward."""

    @staticmethod
    def forward(ctx, tensor, handler: AsyncGroupOffloadHandler):
        handler.on_group_commit_forward()
        ctx.handler = handler
        return tensor.view_as(tensor)

    @staticmethod
    def backward(ctx, grad_output):
        ctx.handler.on_group_commit_backward()
        return grad_output, None


def get_cpu_offload_context(config: ActivationOffloadConfig) -> Tuple[CpuOffloadSavedTensorHook, Callable]:
    handler = AsyncGroupOffloadHandler(config)

    def group_prefetch_offload_commit(tensor: torch.Tensor) -> torch.Tensor:
        return GroupCommitFunction.apply(tensor, handler)

    return CpuOffloadSavedTensorHook(handler), group_prefetch_offload_commit
