# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
from typing import Dict, Iterable

import torch

from deepspeed.accelerator import get_accelerator

from .constants import OFFLOAD_BUFFER_SUFFIX


def _make_offload_state_key(key: str) -> str:
    return f"{key}{OFFLOAD_BUFFER_SUFFIX}"


def get_offload_buffer(state: Dict, key: str, like: torch.Tensor, device: str, pin_memory: bool) -> torch.Tensor:
    buf_key = _make_offload_state_key(key)
    buf = state.get(buf_key)
    if buf is None or buf.numel() != like.numel():
        buf = torch.empty_like(like, device=device)
        if pin_memory:
            buf = get_accelerator().pin_memory(buf)
        state[buf_key] = buf
    return buf


def all_finite(buffers: Iterable[torch.Tensor]) -> bool:
    for buf in buffers:
        if not torch.isfinite(buf).all():
            return False
    return True
