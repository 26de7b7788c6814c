"""A module wrapper in the shape of FSDP2: an autograd Function on the inputs triggers the
post-backward of each handle; the wrapper finalizes backward, clips and steps on the CPU.

Bugs: the post-backward stream is ordered behind the compute stream once, before backward
runs (so not behind the kernels that produce the gradient), and backward is finalized with
a device-side wait only, so the host clips gradients whose copies may still be in flight."""

import torch

from .clip import clip_cpu_grads_
from .handle import FlatParamHandle
from .streams import get_streams


class RegisterPostBackward(torch.autograd.Function):
    @staticmethod
    def forward(ctx, handle, *inputs):
        ctx.handle = handle
        return inputs

    @staticmethod
    def backward(ctx, *grads):
        ctx.handle.post_backward()
        return (None,) + grads


class FullyShardedModule(torch.nn.Module):
    def __init__(self, module, flat_param, world_size, rank, cpu_optimizer, max_norm=1.0):
        super().__init__()
        self.module = module
        self.handle = FlatParamHandle(flat_param, world_size, rank, get_streams())
        self.cpu_optimizer = cpu_optimizer
        self.max_norm = max_norm

    def forward(self, *inputs):
        self.handle.unshard()
        inputs = RegisterPostBackward.apply(self.handle, *inputs)
        return self.module(*inputs)

    def backward(self, loss):
        compute = torch.cuda.current_stream()
        self.handle.streams.post_backward.wait_stream(compute)
        loss.backward()
        compute.wait_stream(self.handle.streams.post_backward)
        clip_cpu_grads_([self.handle], self.max_norm)
        self.cpu_optimizer.step()
