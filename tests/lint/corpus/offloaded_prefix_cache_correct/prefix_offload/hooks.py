# coding=utf-8
# Copyright 2024 The HuggingFace Inc. team.
# Licensed under the Apache License, Version 2.0
import functools
from typing import List

import torch.nn as nn

from .cache_utils import OffloadedPrefixCache


def _resolve_layers(model: nn.Module, layers_attr: str) -> nn.ModuleList:
    return functools.reduce(getattr, layers_attr.split("."), model)


def _release_slot(cache: OffloadedPrefixCache, layer_idx: int, module: nn.Module, *_):
    cache.mark_layer_released(layer_idx)


def _begin_forward(cache: OffloadedPrefixCache, module: nn.Module, *_):
    cache.begin_forward()


def attach_layer_release_hooks(model: nn.Module, cache: OffloadedPrefixCache) -> List:
    """Registers the hooks that tell `cache` when a decoder layer is done with its device slot."""
    handles = []
    layers = _resolve_layers(model, cache.config.layers_attr)
    for layer_idx, layer in enumerate(layers):
        handles.append(layer.register_forward_hook(functools.partial(_release_slot, cache, layer_idx)))
    handles.append(model.register_forward_pre_hook(functools.partial(_begin_forward, cache)))
    return handles
