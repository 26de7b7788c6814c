# Copyright 2025 The HuggingFace Team. All rights reserved.
"""Thin device-agnostic wrappers (cuda, xpu, ...) around stream and event objects."""
import torch


def backend_module(device: torch.device):
    return torch.get_device_module(device)


def current_stream(device: torch.device):
    return torch.accelerator.current_stream(device)


def new_stream(device: torch.device):
    return backend_module(device).Stream(device=device)


def new_event(device: torch.device):
    return torch.Event(device=device)


def allocate_host_layer(shape, dtype: torch.dtype, offload_device: str, pin_memory: bool) -> torch.Tensor:
    return torch.zeros(shape, dtype=dtype, device=offload_device, pin_memory=pin_memory)
