"""Auxiliary CUDA streams shared by the PyTorch executor components."""
from __future__ import annotations

import logging
from typing import Optional

import torch

logger = logging.getLogger("tensorrt_llm")

_AUX_STREAMS: dict[str, torch.cuda.Stream] = {}


def get_aux_stream(name: str,
                   device: Optional[torch.device] = None) -> torch.cuda.Stream:
    """Return a lazily created high priority stream registered under name."""
    stream = _AUX_STREAMS.get(name)
    if stream is None:
        _, high_priority = torch.cuda.Stream.priority_range()
        stream = torch.cuda.Stream(device=device, priority=high_priority)
        _AUX_STREAMS[name] = stream
        logger.info("Created auxiliary stream '%s'", name)
    return stream


def sampler_d2h_stream(device: Optional[torch.device] = None) -> torch.cuda.Stream:
    return get_aux_stream("sampler_d2h", device)
