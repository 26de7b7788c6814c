import logging
from typing import Optional, Sequence, Union

import torch

from .group import PrefetchGroup
from .hooks import LayerwisePrefetchHook, add_hook_to_module
from .utils import flatten_to_pinned

logger = logging.getLogger(__name__)


def cpu_offload_with_layer_prefetch(
    model: torch.nn.Module,
    layers: Sequence[torch.nn.Module],
    execution_device: Optional[Union[int, str, torch.device]] = None,
    dtype: torch.dtype = torch.float16,
) -> torch.nn.Module:
    """
    Keeps the weights of `layers` in pinned host memory and streams them through a two-slot
    device staging ring during the forward pass. Other submodules are moved to `execution_device`.
    """
    if execution_device is None:
        execution_device = torch.accelerator.current_accelerator()
    execution_device = torch.device(execution_device)

    host_flats, layouts = [], []
    for layer in layers:
        flat, layout = flatten_to_pinned(layer, dtype)
        host_flats.append(flat)
        layouts.append(layout)
    group = PrefetchGroup(host_flats, layouts, execution_device)

    offloaded = {id(layer) for layer in layers}
    for name, child in model.named_children():
        if id(child) not in offloaded and not isinstance(child, torch.nn.ModuleList):
            child.to(execution_device)

    for index, layer in enumerate(layers):
        add_hook_to_module(layer, LayerwisePrefetchHook(index, group, execution_device))
    logger.info("Offloaded %d layers to pinned host memory", len(layers))
    return model
