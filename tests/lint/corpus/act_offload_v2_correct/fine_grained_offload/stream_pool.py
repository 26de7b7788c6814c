# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
"""Lazily-created memcpy streams and a pinned host buffer pool."""

from collections import defaultdict
from typing import Dict, List, Optional, Tuple

import torch

_D2H_STREAM: Optional[torch.cuda.Stream] = None
_H2D_STREAM: Optional[torch.cuda.Stream] = None
_PINNED_POOL: Dict[Tuple[torch.Size, torch.dtype], List[torch.Tensor]] = defaultdict(list)


def d2h_stream() -> torch.cuda.Stream:
    global _D2H_STREAM
    if _D2H_STREAM is None:
        _D2H_STREAM = torch.cuda.Stream()
    return _D2H_STREAM


def h2d_stream() -> torch.cuda.Stream:
    global _H2D_STREAM
    if _H2D_STREAM is None:
        _H2D_STREAM = torch.cuda.Stream()
    return _H2D_STREAM


def acquire_pinned(shape: torch.Size, dtype: torch.dtype, pin: bool = True) -> torch.Tensor:
    bucket = _PINNED_POOL[(shape, dtype)]
    if bucket:
        return bucket.pop()
    return torch.empty(shape, dtype=dtype, device="cpu", pin_memory=pin)


def release_pinned(buf: torch.Tensor) -> None:
    _PINNED_POOL[(buf.shape, buf.dtype)].append(buf)
