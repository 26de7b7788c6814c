# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
from typing import List, Tuple

import torch

from .buffers import get_offload_buffer
from .constants import ADAM_STATE_KEYS


def offload_adam_states(optimizer: torch.optim.Optimizer,
                        device: str,
                        pin_memory: bool = True,
                        non_blocking: bool = True) -> List[Tuple[torch.Tensor, torch.Tensor]]:
    """Move Adam moments to host buffers. Returns (device tensor, host buffer) pairs;
    the device tensors must be kept alive until the copies have completed."""
    moved = []
    for state in optimizer.state.values():
        for key in ADAM_STATE_KEYS:
            if key not in state or state[key].device.type == device:
                continue
            dev_tensor = state[key].data
            buf = get_offload_buffer(state, key, dev_tensor, device, pin_memory)
            buf.copy_(dev_tensor, non_blocking=non_blocking)
            state[key].data = buf
            moved.append((dev_tensor, buf))
    return moved


def reload_adam_states(optimizer: torch.optim.Optimizer, device: torch.device, non_blocking: bool = True) -> None:
    for state in optimizer.state.values():
        for key in ADAM_STATE_KEYS:
            if key not in state or state[key].device == device:
                continue
            host = state[key].data
            dev_tensor = torch.empty_like(host, device=device)
            dev_tensor.copy_(host, non_blocking=non_blocking)
            state[key].data = dev_tensor
