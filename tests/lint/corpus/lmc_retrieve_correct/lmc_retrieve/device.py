# SPDX-License-Identifier: Apache-2.0
"""Device-agnostic stream helpers (CUDA, XPU, ...)."""
# Standard
from contextlib import AbstractContextManager

# Third Party
import torch


def create_load_stream(device: torch.device):
    return torch.get_device_module(device).Stream(device=device)


def use_stream(stream) -> AbstractContextManager:
    return torch.get_device_module(stream.device).stream(stream)


def compute_stream(device: torch.device) -> torch.Stream:
    return torch.accelerator.current_stream(device)
