# Copyright 2025 The HuggingFace Team. All rights reserved.
import functools
from typing import List, Sequence

import torch
import torch.nn as nn

from .staging import StagingSlots


class ModelHook:
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

    @functools.wraps(old_forward)
    def new_forward(*args, **kwargs):
        args, kwargs = module._hf_hook.pre_forward(module, *args, **kwargs)
        output = old_forward(*args, **kwargs)
        return module._hf_hook.post_forward(module, output)

    module.forward = new_forward
    return module


def _compute_stream_handle() -> int:
    return torch.cuda.current_stream().cuda_stream


class PrefetchOffloadHook(ModelHook):
    """Binds a module to its staging slot before forward and starts loading the next module."""

    def __init__(self, staging: StagingSlots, index: int, num_modules: int, mutable_buffers: Sequence[str] = ()):
        self.staging = staging
        self.index = index
        self.num_modules = num_modules
        self.mutable_buffers = list(mutable_buffers)

    def init_hook(self, module: nn.Module) -> nn.Module:
        for name, _ in list(module.named_parameters(recurse=False)):
            module._parameters[name] = None
        return module

    def pre_forward(self, module: nn.Module, *args, **kwargs):
        compute = _compute_stream_handle()
        self.staging.wait_loaded(self.index, compute)
        for name, view in self.staging.views(self.index).items():
            if name in module._buffers:
                module._buffers[name] = view
            else:
                module._parameters[name] = nn.Parameter(view, requires_grad=False)
        if self.index + 1 < self.num_modules:
            self.staging.prefetch(self.index + 1)
        return args, kwargs

    def post_forward(self, module: nn.Module, output):
        self.staging.write_back(self.index, self.mutable_buffers, _compute_stream_handle())
        for name in list(module._parameters):
            module._parameters[name] = None
        return output


def attach_prefetch_offload_hooks(modules: List[nn.Module], execution_device: torch.device) -> StagingSlots:
    weights_map = [{**dict(m.named_parameters(recurse=False)), **dict(m.named_buffers(recurse=False))}
                   for m in modules]
    weights_map = [{k: v.detach().cpu() for k, v in w.items()} for w in weights_map]
    staging = StagingSlots(weights_map, execution_device)
    for i, module in enumerate(modules):
        mutable = [name for name, _ in module.named_buffers(recurse=False) if "running" in name]
        add_hook_to_module(module, PrefetchOffloadHook(staging, i, len(modules), mutable))
    return staging
