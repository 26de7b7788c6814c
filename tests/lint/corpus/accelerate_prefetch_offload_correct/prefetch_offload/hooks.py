# Copyright 2024 The HuggingFace Team. All rights reserved.
from __future__ import annotations

import functools

import torch.nn as nn


class ModelHook:
    """Hook executed around a module's forward, mirroring ``accelerate.hooks.ModelHook``."""

    no_grad = False

    def init_hook(self, module: nn.Module) -> nn.Module:
        return module

    def pre_forward(self, module: nn.Module, *args, **kwargs):
        return args, kwargs

    def post_forward(self, module: nn.Module, output):
        return output


def add_hook_to_module(module: nn.Module, hook: ModelHook) -> nn.Module:
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
