from typing import Union

import torch


def get_device_module(device: Union[str, torch.device]):
    """Returns `torch.cuda`, `torch.xpu`, ... for the given accelerator device."""
    return torch.get_device_module(torch.device(device))


def current_stream(device: Union[str, torch.device]):
    return torch.accelerator.current_stream(torch.device(device))


def new_stream(device: Union[str, torch.device]):
    return get_device_module(device).Stream(device=torch.device(device))


def new_event(device: Union[str, torch.device]):
    return get_device_module(device).Event()


def align(nbytes: int, alignment: int) -> int:
    return (nbytes + alignment - 1) // alignment * alignment
