"""Device-generic helpers so the offload path works on any ``torch.accelerator`` backend."""
from __future__ import annotations

import functools
from typing import Any

import torch


@functools.lru_cache(maxsize=None)
def device_module(device_type: str) -> Any:
    return torch.get_device_module(device_type)


def accelerator_device() -> torch.device:
    acc = torch.accelerator.current_accelerator()
    if acc is None:
        raise RuntimeError("CPU offload requires an accelerator device")
    return torch.device(acc.type, torch.accelerator.current_device_index())


def new_stream(device: torch.device):
    return device_module(device.type).Stream(device=device)


def current_stream(device: torch.device):
    return device_module(device.type).current_stream(device)


def pin(tensor: torch.Tensor) -> torch.Tensor:
    return tensor if tensor.is_pinned() else tensor.pin_memory()
