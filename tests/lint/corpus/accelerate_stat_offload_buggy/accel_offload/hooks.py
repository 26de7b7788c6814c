import functools

import torch.nn as nn

from .constants import HOOK_ATTR, OLD_FORWARD_ATTR


class ModelHook:
    """Callbacks run around the forward method of the module it is attached to."""

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
    if hasattr(module, HOOK_ATTR) and hasattr(module, OLD_FORWARD_ATTR):
        old_forward = getattr(module, OLD_FORWARD_ATTR)
    else:
        old_forward = module.forward
        setattr(module, OLD_FORWARD_ATTR, old_forward)

    module = hook.init_hook(module)
    setattr(module, HOOK_ATTR, hook)

    @functools.wraps(old_forward)
    def new_forward(*args, **kwargs):
        args, kwargs = module._hf_hook.pre_forward(module, *args, **kwargs)
        output = module._old_forward(*args, **kwargs)
        return module._hf_hook.post_forward(module, output)

    module.forward = new_forward
    return module


def remove_hook_from_module(module: nn.Module) -> nn.Module:
    if hasattr(module, HOOK_ATTR):
        getattr(module, HOOK_ATTR).detach_hook(module)
        delattr(module, HOOK_ATTR)
    if hasattr(module, OLD_FORWARD_ATTR):
        module.forward = getattr(module, OLD_FORWARD_ATTR)
        delattr(module, OLD_FORWARD_ATTR)
    return module
