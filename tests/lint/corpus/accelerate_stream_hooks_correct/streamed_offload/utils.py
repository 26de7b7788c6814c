from typing import Dict, Optional, Union

import torch
import torch.nn as nn

NUM_WEIGHT_SLOTS = 2


def get_device_module(device: Union[str, torch.device]):
    """Returns the torch device module (`torch.cuda`, `torch.xpu`, ...) of `device`."""
    return torch.get_device_module(torch.device(device))


def offload_state_dict(module: nn.Module, pin_memory: bool = True) -> Dict[str, torch.Tensor]:
    """Copies the parameters of `module` to (pinned) CPU memory, keyed by name."""
    weights_map = {}
    for name, param in module.named_parameters(recurse=False):
        cpu_param = param.detach().to("cpu")
        weights_map[name] = cpu_param.pin_memory() if pin_memory else cpu_param
    return weights_map


def set_module_tensor_from_buffer(module: nn.Module, name: str, buffer: torch.Tensor, value: Optional[torch.Tensor]):
    """Points parameter `name` of `module` at a view of `buffer` shaped like `value`."""
    if value is None:
        module._parameters[name] = nn.Parameter(torch.empty(0, device="meta"), requires_grad=False)
        return
    view = buffer[: value.numel()].view(value.shape)
    module._parameters[name] = nn.Parameter(view, requires_grad=False)
