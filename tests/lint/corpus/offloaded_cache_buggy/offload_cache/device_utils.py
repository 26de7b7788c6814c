# coding=utf-8
import logging
from typing import Optional

import torch

logger = logging.getLogger(__name__)


def accelerator_device(device: Optional[torch.device] = None) -> torch.device:
    if device is not None:
        return torch.device(device)
    acc = torch.accelerator.current_accelerator()
    return torch.device(acc.type, torch.accelerator.current_device_index())


def new_side_stream(device: torch.device):
    """Create an extra stream on ``device`` through the generic device module."""
    device_module = torch.get_device_module(device)
    stream = device_module.Stream(device=device)
    logger.debug("created side stream %s on %s", stream, device)
    return stream


def compute_stream(device: torch.device):
    return torch.accelerator.current_stream(device)


def stream_context(stream):
    return torch.get_device_module(stream.device).stream(stream)
