# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from typing import Optional

import torch

from .buffers import DeviceBufferPool
from .handler import ChunkOffloadHandler


class _GroupCommitFunction(torch.autograd.Function):
    """Identity in fprop; in bprop, tells the handler a group's backward is about to run."""

    @staticmethod
    def forward(ctx, tensor: torch.Tensor, handler: ChunkOffloadHandler, group_idx: int) -> torch.Tensor:
        ctx.handler = handler
        ctx.group_idx = group_idx
        return tensor.view_as(tensor)

    @staticmethod
    def backward(ctx, grad_output: torch.Tensor):
        ctx.handler.on_group_backward(ctx.group_idx)
        return grad_output, None, None


class PipelineOffloadManager:
    _instance: Optional["PipelineOffloadManager"] = None

    @classmethod
    def get_instance(cls) -> "PipelineOffloadManager":
        if cls._instance is None:
            cls._instance = cls()
        return cls._instance

    def __init__(self) -> None:
        device = torch.device("cuda", torch.cuda.current_device())
        self.d2h_stream = torch.cuda.Stream(device=device)
        self.h2d_stream = torch.cuda.Stream(device=device)
        self.handler = ChunkOffloadHandler(self.d2h_stream, self.h2d_stream, DeviceBufferPool(device))
        self._hooks: Optional[torch.autograd.graph.saved_tensors_hooks] = None
        self._group_idx = -1

    def __enter__(self) -> "PipelineOffloadManager":
        self._hooks = torch.autograd.graph.saved_tensors_hooks(self.handler.pack, self.handler.unpack)
        self._hooks.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self._hooks.__exit__(*exc)
        self._hooks = None

    def start(self, name: str) -> None:
        self._group_idx = self.handler.start_group(name)

    def commit(self, tensor: torch.Tensor) -> torch.Tensor:
        return _GroupCommitFunction.apply(tensor, self.handler, self._group_idx)


def group_offload_start(tensor: torch.Tensor, name: str) -> torch.Tensor:
    PipelineOffloadManager.get_instance().start(name)
    return tensor


def group_offload_commit(tensor: torch.Tensor) -> torch.Tensor:
    return PipelineOffloadManager.get_instance().commit(tensor)
