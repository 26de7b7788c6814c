import functools

import torch
from torch import nn

from .utils import send_to_device


class ModelHook:
    """A hook that is executed just before and after the forward method of a module."""

    no_grad = False

    def init_hook(self, module: nn.Module) -> nn.Module:
        return module

    def pre_forward(self, module: nn.Module, *args, **kwargs):
        return args, kwargs

    def post_forward(self, module: nn.Module, output):
        return output

    def detach_hook(self, module: nn.Module) -> nn.Module:
        return module


def add_hook_to_module(module: nn.Module, hook: ModelHook) -> nn.Module:
    if hasattr(module, "_hf_hook") and hasattr(module, "_old_forward"):
        old_forward = module._old_forward
    else:
        old_forward = module.forward
        module._old_forward = old_forward

    module = hook.init_hook(module)
    module._hf_hook = hook

    @functools.wraps(old_forward)
    def new_forward(*args, **kwargs):
        args, kwargs = module._hf_hook.pre_forward(module, *args, **kwargs)
        if module._hf_hook.no_grad:
            with torch.no_grad():
                output = module._old_forward(*args, **kwargs)
        else:
            output = module._old_forward(*args, **kwargs)
        return module._hf_hook.post_forward(module, output)

    module.forward = new_forward
    return module


def remove_hook_from_module(module: nn.Module) -> nn.Module:
    if hasattr(module, "_hf_hook"):
        module._hf_hook.detach_hook(module)
        delattr(module, "_hf_hook")
    if hasattr(module, "_old_forward"):
        module.forward = module._old_forward
        delattr(module, "_old_forward")
    return module


class PrefetchOffloadHook(ModelHook):
    """Keeps a block's weights on the host and binds them to a device slot for the forward."""

    no_grad = True

    def __init__(self, block_idx: int, offloader):
        self.block_idx = block_idx
        self.offloader = offloader

    def pre_forward(self, module, *args, **kwargs):
        self.offloader.onload(self.block_idx, module)
        device = self.offloader.execution_device
        return send_to_device(args, device), send_to_device(kwargs, device)

    def post_forward(self, module, output):
        self.offloader.release(self.block_idx)
        return output
