from typing import Any, Dict, Mapping, Optional, Union

import torch
from torch import nn


def get_device_module(device: Union[str, torch.device]):
    """Returns the backend module (`torch.cuda`, `torch.xpu`, ...) of `device`."""
    return torch.get_device_module(torch.device(device))


def default_execution_device() -> torch.device:
    if torch.accelerator.is_available():
        return torch.accelerator.current_accelerator()
    return torch.device("cpu")


def host_state_dict(module: nn.Module, pin_memory: bool = True) -> Dict[str, torch.Tensor]:
    state = {}
    for name, param in module.named_parameters(recurse=True):
        tensor = param.detach().to("cpu")
        state[name] = tensor.pin_memory() if pin_memory else tensor
    return state


def set_module_tensor(module: nn.Module, tensor_name: str, value: torch.Tensor) -> None:
    if "." in tensor_name:
        prefix, tensor_name = tensor_name.rsplit(".", 1)
        module = module.get_submodule(prefix)
    module._parameters[tensor_name] = nn.Parameter(value, requires_grad=False)


def send_to_device(obj: Any, device: torch.device, non_blocking: bool = False) -> Any:
    if isinstance(obj, torch.Tensor):
        return obj.to(device, non_blocking=non_blocking)
    if isinstance(obj, (list, tuple)):
        return type(obj)(send_to_device(o, device, non_blocking) for o in obj)
    if isinstance(obj, Mapping):
        return type(obj)({k: send_to_device(v, device, non_blocking) for k, v in obj.items()})
    return obj
