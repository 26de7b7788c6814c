# SPDX-License-Identifier: Apache-2.0
# Standard
from types import ModuleType
from typing import Union
import logging

# Third Party
import torch

logger = logging.getLogger(__name__)

DeviceLike = Union[str, int, torch.device]


def resolve_device(device: DeviceLike) -> torch.device:
    if isinstance(device, int):
        return torch.device(torch.accelerator.current_accelerator().type, device)
    return torch.device(device)


def device_module(device: DeviceLike) -> ModuleType:
    """torch.cuda / torch.xpu / ... for the given device."""
    return torch.get_device_module(resolve_device(device))


def create_side_stream(device: DeviceLike):
    dev = resolve_device(device)
    stream = device_module(dev).Stream(device=dev)
    logger.debug("Created side stream %s on %s", stream, dev)
    return stream
