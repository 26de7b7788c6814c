import logging

import torch

logger = logging.getLogger(__name__)

_SIDE_STREAMS: dict[tuple[int, str], torch.cuda.Stream] = {}


def side_stream(device: torch.device, role: str, priority: int = 0) -> torch.cuda.Stream:
    """One lazily created stream per (device, role), shared by every cache on that device."""
    key = (device.index or 0, role)
    stream = _SIDE_STREAMS.get(key)
    if stream is None:
        stream = torch.cuda.Stream(device=device, priority=priority)
        _SIDE_STREAMS[key] = stream
        logger.debug("created %s stream on %s (priority=%d)", role, device, priority)
    return stream
