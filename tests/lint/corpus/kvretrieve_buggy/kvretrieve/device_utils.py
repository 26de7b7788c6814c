# SPDX-License-Identifier: Apache-2.0
# Third Party
import torch


def get_device_module(device: torch.device):
    """``torch.cuda``, ``torch.xpu``, ... depending on the device type."""
    return torch.get_device_module(device)


def create_stream(device: torch.device):
    return get_device_module(device).Stream(device=device)


def current_stream(device: torch.device):
    return torch.accelerator.current_stream(device)
