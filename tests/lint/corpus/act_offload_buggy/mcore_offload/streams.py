# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
"""Process-wide offload streams, created lazily on the active accelerator."""
from typing import Optional, Tuple

import torch

_D2H_STREAM: Optional[torch.Stream] = None
_H2D_STREAM: Optional[torch.Stream] = None


def device_module():
    return torch.get_device_module()


def get_offload_streams() -> Tuple[torch.Stream, torch.Stream]:
    global _D2H_STREAM, _H2D_STREAM
    if _D2H_STREAM is None:
        mod = device_module()
        _D2H_STREAM = mod.Stream()
        _H2D_STREAM = mod.Stream()
    return _D2H_STREAM, _H2D_STREAM


def compute_stream() -> torch.Stream:
    return torch.accelerator.current_stream()


def new_event():
    return device_module().Event()


def on_stream(stream: torch.Stream):
    return device_module().stream(stream)
