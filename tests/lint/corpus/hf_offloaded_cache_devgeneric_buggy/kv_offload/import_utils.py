# Copyright 2024 The HuggingFace Team. All rights reserved.

import logging
from functools import lru_cache

import torch
from packaging import version


def get_logger(name: str) -> logging.Logger:
    return logging.getLogger(name)


@lru_cache
def is_torch_greater_or_equal(library_version: str, accept_dev: bool = False) -> bool:
    current = version.parse(torch.__version__)
    if accept_dev:
        current = version.parse(current.base_version)
    return current >= version.parse(library_version)


def is_torch_accelerator_available() -> bool:
    if is_torch_greater_or_equal("2.6", accept_dev=True):
        return torch.accelerator.is_available()
    return torch.cuda.is_available()


def get_device_module(device: torch.device):
    return torch.get_device_module(device)
