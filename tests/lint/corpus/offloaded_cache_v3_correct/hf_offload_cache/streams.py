import logging
from typing import Dict

import torch

logger = logging.getLogger(__name__)

_OFFLOAD_STREAMS: Dict[int, torch.cuda.Stream] = {}


def get_offload_stream(device: torch.device) -> torch.cuda.Stream:
    """Returns the side stream used for cache transfers on `device` (one per device)."""
    index = device.index if device.index is not None else torch.cuda.current_device()
    if index not in _OFFLOAD_STREAMS:
        logger.debug("Creating cache transfer stream on cuda:%d", index)
        _OFFLOAD_STREAMS[index] = torch.cuda.Stream(device=index)
    return _OFFLOAD_STREAMS[index]


def compute_stream(device: torch.device) -> torch.cuda.Stream:
    return torch.cuda.current_stream(device)
