"""Accelerator-agnostic stream/event helpers."""
from types import ModuleType

import torch


def device_module_for(device: torch.device) -> ModuleType:
    return torch.get_device_module(device)


def new_stream(device: torch.device):
    return device_module_for(device).Stream(device=device)


def new_event(device: torch.device):
    return device_module_for(device).Event()


def compute_stream(device: torch.device):
    return torch.accelerator.current_stream(device)


def stream_context(device: torch.device, stream):
    return device_module_for(device).stream(stream)
