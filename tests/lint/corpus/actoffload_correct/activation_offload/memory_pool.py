# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from typing import Dict, Hashable, Tuple

import torch

_MEMCPY_STREAM: Dict[str, torch.cuda.Stream] = {}
_GPU_BUFFER_POOL: Dict[Hashable, torch.Tensor] = {}


def get_memcpy_stream(key: str) -> torch.cuda.Stream:
    if key not in _MEMCPY_STREAM:
        _MEMCPY_STREAM[key] = torch.cuda.Stream()
    return _MEMCPY_STREAM[key]


def get_persistent_gpu_buffer(key: Hashable, numel: int, dtype: torch.dtype) -> Tuple[torch.Tensor, bool]:
    """Returns a flat device buffer kept alive across iterations and whether it was just created."""
    buf = _GPU_BUFFER_POOL.get(key)
    created = False
    if buf is None or buf.dtype != dtype or buf.numel() < numel:
        _GPU_BUFFER_POOL[key] = None  # release before allocate
        buf = torch.empty(numel, dtype=dtype, device=torch.cuda.current_device())
        _GPU_BUFFER_POOL[key] = buf
        created = True
    return buf[:numel], created


def empty_pinned_like(tensor: torch.Tensor) -> torch.Tensor:
    return torch.empty(tensor.numel(), dtype=tensor.dtype, device="cpu", pin_memory=True)
