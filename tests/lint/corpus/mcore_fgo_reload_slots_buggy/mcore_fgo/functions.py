"""Identity autograd functions marking where an offload group starts and ends."""
import torch

from .offload_manager import PipelineOffloadManager


class GroupStartFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, tensor, handler, name):
        ctx.handler = handler
        handler.on_group_start_forward(name)
        return tensor

    @staticmethod
    def backward(ctx, grad_output):
        ctx.handler.on_group_start_backward()
        return grad_output, None, None


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


def offloaded_module_call(module, hidden, handler, name):
    """Run ``module`` with its saved activations offloaded as one group."""
    hidden = GroupStartFunction.apply(hidden, handler, name)
    with PipelineOffloadManager.get_instance():
        out = module(hidden)
    return GroupCommitFunction.apply(out, handler)
