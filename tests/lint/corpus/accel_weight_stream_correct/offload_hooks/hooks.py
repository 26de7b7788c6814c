# Copyright 2022 The HuggingFace Team. All rights reserved.

import functools
from typing import List, Optional, Sequence

import torch
import torch.nn as nn

from .streaming import CupyWeightStreamer


def set_module_tensor_to_device(module: nn.Module, tensor_name: str, device, value: Optional[torch.Tensor] = None):
    if "." in tensor_name:
        splits = tensor_name.split(".")
        for split in splits[:-1]:
            module = getattr(module, split)
        tensor_name = splits[-1]
    is_buffer = tensor_name in module._buffers
    new_value = value if value is not None else torch.empty_like(getattr(module, tensor_name), device=device)
    if is_buffer:
        module._buffers[tensor_name] = new_value
    else:
        module._parameters[tensor_name] = nn.Parameter(new_value, requires_grad=False)


class ModelHook:
    no_grad = False

    def init_hook(self, module):
        return module

    def pre_forward(self, module, *args, **kwargs):
        return args, kwargs

    def post_forward(self, module, output):
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


class AlignDevicesHook(ModelHook):
    """Loads a layer's offloaded weights just before its forward and drops them right after."""

    def __init__(self, streamer: CupyWeightStreamer, layer_idx: int, prefix: str,
                 writeback_buffers: Sequence[str] = ()):
        self.streamer = streamer
        self.layer_idx = layer_idx
        self.prefix = prefix
        self.writeback_buffers = list(writeback_buffers)
        self.pending_writebacks: List = []

    def pre_forward(self, module, *args, **kwargs):
        for name, tensor in self.streamer.device_views(self.layer_idx).items():
            set_module_tensor_to_device(module, name[len(self.prefix):], tensor.device, value=tensor)
        self.streamer.prefetch(self.layer_idx + 1)
        return args, kwargs

    def post_forward(self, module, output):
        self.streamer.mark_released(self.layer_idx)
        for name in self.writeback_buffers:
            tensor = module.get_buffer(name[len(self.prefix):])
            self.pending_writebacks.append(self.streamer.writeback(name, tensor))
        for name in self.streamer.layer_param_names[self.layer_idx]:
            set_module_tensor_to_device(module, name[len(self.prefix):], "meta")
        return output


def attach_streamed_align_hooks(layers: Sequence[nn.Module], prefixes: Sequence[str],
                                streamer: CupyWeightStreamer) -> None:
    for layer_idx, (layer, prefix) in enumerate(zip(layers, prefixes)):
        add_hook_to_module(layer, AlignDevicesHook(streamer, layer_idx, prefix))
