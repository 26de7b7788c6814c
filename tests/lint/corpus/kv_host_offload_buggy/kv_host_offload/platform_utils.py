"""Device-agnostic stream helpers so the same offloader runs on CUDA and XPU."""

import torch


def device_module(device: torch.device):
    return torch.get_device_module(device)


def compute_stream(device: torch.device) -> torch.Stream:
    return torch.accelerator.current_stream(device)


def synchronize_device(device: torch.device) -> None:
    torch.accelerator.synchronize(device)
