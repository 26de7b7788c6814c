from typing import Dict, Optional, Union

import torch
import torch.nn as nn

from .constants import HOOK_ATTR
from .hooks import add_hook_to_module
from .offload_hook import StatefulCpuOffloadHook


def cpu_offload_with_stats(model: nn.Module, execution_device: Optional[Union[str, torch.device]] = None) -> nn.Module:
    """Attach a host-offload hook to every direct child of `model`."""
    for child in model.children():
        add_hook_to_module(child, StatefulCpuOffloadHook(execution_device))
    return model


def gather_offloaded_state_dict(model: nn.Module) -> Dict[str, torch.Tensor]:
    state: Dict[str, torch.Tensor] = {}
    for child_name, child in model.named_children():
        hook = getattr(child, HOOK_ATTR, None)
        if hook is None:
            continue
        for name, tensor in hook.offloaded_state().items():
            state[f"{child_name}.{name}"] = tensor.clone()
    return state
