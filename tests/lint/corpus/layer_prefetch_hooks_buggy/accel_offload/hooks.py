import functools
from typing import Any

import torch

from .group import PrefetchGroup
from .utils import send_to_device


class ModelHook:
    def init_hook(self, module):
        return module

    def pre_forward(self, module, *args, **kwargs):
        return args, kwargs

    def post_forward(self, module, output):
        return output


def add_hook_to_module(module: torch.nn.Module, hook: ModelHook) -> torch.nn.Module:
    module = hook.init_hook(module)
    module._hf_hook = hook
    old_forward = module.forward
    module._old_forward = old_forward

    @functools.wraps(old_forward)
    def new_forward(*args, **kwargs):
        args, kwargs = module._hf_hook.pre_forward(module, *args, **kwargs)
        output = module._old_forward(*args, **kwargs)
        return module._hf_hook.post_forward(module, output)

    module.forward = new_forward
    return module


class LayerwisePrefetchHook(ModelHook):
    """Runs a layer from the staging ring of its group and prefetches the following layer."""

    def __init__(self, index: int, group: PrefetchGroup, execution_device: torch.device) -> None:
        self.index = index
        self.group = group
        self.execution_device = execution_device

    def pre_forward(self, module, *args, **kwargs):
        self.group.activate(self.index, module)
        return send_to_device(args, self.execution_device), send_to_device(kwargs, self.execution_device)

    def post_forward(self, module, output: Any):
        self.group.release(self.index)
        return output
