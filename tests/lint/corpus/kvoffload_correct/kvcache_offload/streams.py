import logging
from typing import Dict, Optional

import torch

logger = logging.getLogger(__name__)

_TRANSFER_STREAMS: Dict[int, torch.cuda.Stream] = {}


def get_transfer_stream(device_index: Optional[int] = None, priority: int = 0) -> torch.cuda.Stream:
    """Returns the side stream used for cache transfers on the given device (one per device)."""
    if device_index is None:
        device_index = torch.cuda.current_device()
    stream = _TRANSFER_STREAMS.get(device_index)
    if stream is None:
        with torch.cuda.device(device_index):
            stream = torch.cuda.Stream(priority=priority)
        _TRANSFER_STREAMS[device_index] = stream
        logger.debug("created cache transfer stream on cuda:%d", device_index)
    return stream
