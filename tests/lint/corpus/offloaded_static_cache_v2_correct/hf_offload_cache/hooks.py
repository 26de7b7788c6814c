# coding=utf-8
# Copyright 2024 The HuggingFace Team. All rights reserved.
from typing import List

import torch
from torch import nn

from .offloaded_static_cache import OffloadedStaticCache


def _num_new_tokens(kwargs) -> int:
    hidden = kwargs.get("hidden_states")
    return hidden.shape[1] if isinstance(hidden, torch.Tensor) else 1


def attach_layer_prefetch_hooks(layers: nn.ModuleList, cache: OffloadedStaticCache) -> List:
    """Start the upload of layer ``i + 1`` as soon as layer ``i`` is entered."""
    handles = []
    for idx, layer in enumerate(layers):

        def _pre_hook(module, args, kwargs, _idx=idx):
            cache.prefetch_layer(_idx + 1)
            module._offload_new_tokens = _num_new_tokens(kwargs) if kwargs else args[0].shape[1]

        def _post_hook(module, args, output, _idx=idx):
            cache.layer_done(_idx, module._offload_new_tokens)

        handles.append(layer.register_forward_pre_hook(_pre_hook, with_kwargs=True))
        handles.append(layer.register_forward_hook(_post_hook))
    return handles
