"""Device-agnostic stream helpers (CUDA, XPU, ... via torch.accelerator)."""

from types import ModuleType

import torch

from .constants import XFER_STREAM_PRIORITY


def device_module() -> ModuleType:
    return torch.get_device_module()


def current_device() -> torch.device:
    return torch.accelerator.current_accelerator()


def compute_stream() -> torch.Stream:
    return torch.accelerator.current_stream()


def make_transfer_stream() -> torch.Stream:
    return device_module().Stream(priority=XFER_STREAM_PRIORITY)
