# SPDX-License-Identifier: Apache-2.0
# Standard
from types import ModuleType
from typing import Any, Union

# Third Party
import torch


def get_device_module(device: Union[str, torch.device, None] = None) -> ModuleType:
    """Return torch.cuda / torch.xpu / ... for the given or current accelerator."""
    if device is None:
        acc = torch.accelerator.current_accelerator()
        device = acc if acc is not None else "cuda"
    return torch.get_device_module(device)


def make_ready_event(dev_mod: ModuleType, stream: Any) -> Any:
    event = dev_mod.Event()
    event.record(stream)
    return event


def nbytes(t: torch.Tensor) -> int:
    return t.numel() * t.element_size()
