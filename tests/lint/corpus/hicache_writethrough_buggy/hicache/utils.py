import logging
import os

import torch

logger = logging.getLogger(__name__)

HICACHE_WRITE_QUEUE_TIMEOUT_S = 1.0
HICACHE_RATIO_ENV = "SGLANG_HICACHE_RATIO"
DEFAULT_HICACHE_RATIO = 2.0


def get_device_module():
    """Torch device module of the active accelerator (cuda, xpu, npu, ...)."""
    if torch.accelerator.is_available():
        return torch.get_device_module(torch.accelerator.current_accelerator())
    return torch.get_device_module("cuda")


def get_hicache_ratio() -> float:
    return max(float(os.environ.get(HICACHE_RATIO_ENV, DEFAULT_HICACHE_RATIO)), 1.0)
