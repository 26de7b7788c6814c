# coding=utf-8
# Copyright 2024 The HuggingFace Team. All rights reserved.
import logging
from typing import Optional, Tuple, Union

import torch

logger = logging.getLogger(__name__)


def default_device() -> torch.device:
    acc = torch.accelerator.current_accelerator() if torch.accelerator.is_available() else None
    if acc is None:
        logger.warning("No accelerator found, OffloadedStaticCache will keep every layer on CPU")
        return torch.device("cpu")
    return torch.device(acc.type, torch.accelerator.current_device_index())


def resolve_device_module(device: Optional[Union[str, torch.device]]):
    device = torch.device(device) if device is not None else default_device()
    return device, torch.get_device_module(device)


def pinned_empty(shape: Tuple[int, ...], dtype: torch.dtype) -> torch.Tensor:
    return torch.zeros(shape, dtype=dtype, device="cpu", pin_memory=True)
