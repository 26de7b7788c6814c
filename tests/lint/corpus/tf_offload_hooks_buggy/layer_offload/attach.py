"""Wire a LayerPrefetchHook onto every decoder layer of a causal LM."""
from typing import List

import torch
from torch import nn

from .hooks import LayerPrefetchHook, add_hook_to_module
from .weight_slots import WeightSlotPool


def attach_layerwise_offload(layers: nn.ModuleList, device: str = "cuda:0") -> List[LayerPrefetchHook]:
    device = torch.device(device)
    max_numel = max(sum(p.numel() for p in layer.parameters()) for layer in layers)
    pool = WeightSlotPool(max_numel, device)
    load_stream = torch.cuda.Stream(device=device)
    hooks = [LayerPrefetchHook(i, pool, load_stream) for i in range(len(layers))]
    # layer 0 is loaded on demand at the start of each step; every other
    # layer is prefetched while its predecessor runs
    for hook, nxt in zip(hooks, hooks[1:]):
        hook.next_hook = nxt
    for layer, hook in zip(layers, hooks):
        add_hook_to_module(layer, hook)
    return hooks
