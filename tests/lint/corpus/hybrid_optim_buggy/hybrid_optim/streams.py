# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
"""Process-wide memcpy streams shared by every offloading optimizer."""

from typing import Dict

import torch

_MEMCPY_STREAMS: Dict[str, torch.cuda.Stream] = {}


def get_memcpy_stream(key: str, overlap: bool = True) -> torch.cuda.Stream:
    if not overlap:
        return torch.cuda.current_stream()
    if key not in _MEMCPY_STREAMS:
        _MEMCPY_STREAMS[key] = torch.cuda.Stream()
    return _MEMCPY_STREAMS[key]


def get_d2h_stream(overlap: bool = True) -> torch.cuda.Stream:
    return get_memcpy_stream("d2h", overlap)


def get_h2d_stream(overlap: bool = True) -> torch.cuda.Stream:
    return get_memcpy_stream("h2d", overlap)
