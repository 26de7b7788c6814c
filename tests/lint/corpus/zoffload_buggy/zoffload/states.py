# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
import torch

from deepspeed.accelerator import get_accelerator

from . import streams
from .constants import OFFLOAD_BUFFER_SUFFIX


def make_offload_key(key):
    return f"{key}{OFFLOAD_BUFFER_SUFFIX}"


def move_key(state, key):
    if key not in state:
        return
    buf_key = make_offload_key(key)
    if buf_key not in state:
        state[buf_key] = get_accelerator().pin_memory(torch.empty_like(state[key], device="cpu"))

    with get_accelerator().stream(streams.copy_stream):
        # expect: KVG001
        state[buf_key].copy_(state[key], non_blocking=True)
        state[key].record_stream(streams.copy_stream)
    del state[key]


def move_back_key(state, key, device):
    buf_key = make_offload_key(key)
    if key in state or buf_key not in state:
        return
    with get_accelerator().stream(streams.copy_stream):
        restored = torch.empty_like(state[buf_key], device=device)
        restored.copy_(state[buf_key], non_blocking=True)
    state[key] = restored
