from typing import Dict

import torch

_TRANSFER_STREAMS: Dict[int, torch.cuda.Stream] = {}


def get_transfer_stream(device: torch.device) -> torch.cuda.Stream:
    """Return the per-device stream used for cache movement between host and device."""
    index = device.index if device.index is not None else torch.cuda.current_device()
    stream = _TRANSFER_STREAMS.get(index)
    if stream is None:
        stream = torch.cuda.Stream(device=index)
        _TRANSFER_STREAMS[index] = stream
    return stream
