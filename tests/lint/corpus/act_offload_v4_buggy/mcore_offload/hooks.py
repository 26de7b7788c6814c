import contextlib
from typing import Optional

import torch

from .handler import ChunkOffloadHandler

_HANDLER: Optional[ChunkOffloadHandler] = None


def set_offload_handler(handler: Optional[ChunkOffloadHandler]) -> None:
    global _HANDLER
    _HANDLER = handler


def get_offload_handler() -> ChunkOffloadHandler:
    assert _HANDLER is not None, "activation offloading is not initialized"
    return _HANDLER


@contextlib.contextmanager
def offload_saved_tensors():
    """Route tensors saved for backward through the offload handler."""
    handler = get_offload_handler()
    with torch.autograd.graph.saved_tensors_hooks(handler.tensor_push, handler.tensor_pop):
        yield


class GroupCommitFunction(torch.autograd.Function):
    """Identity op marking the end of an offload group in both passes."""

    @staticmethod
    def forward(ctx, tensor: torch.Tensor, handler: ChunkOffloadHandler) -> torch.Tensor:
        handler.on_group_commit_forward()
        ctx.handler = handler
        return tensor.view_as(tensor)

    @staticmethod
    def backward(ctx, grad_output: torch.Tensor):
        ctx.handler.on_group_commit_backward()
        return grad_output, None


def group_prefetch_offload_commit(tensor: torch.Tensor) -> torch.Tensor:
    return GroupCommitFunction.apply(tensor, get_offload_handler())
