# SPDX-License-Identifier: Apache-2.0
"""Helpers that move tensors between the accelerator and host, keeping a host copy per key."""

import torch
from deepspeed.accelerator import get_accelerator


def _host_like(tensor, pin_memory):
    host = torch.empty(tensor.shape, dtype=tensor.dtype, device="cpu")
    return get_accelerator().pin_memory(host) if pin_memory else host


def offload_tensor(tensor, host_cache, key, pin_memory, non_blocking):
    """Copy ``tensor`` to host memory; returns the host copy (kept in ``host_cache``)."""
    host = host_cache.get(key)
    if host is None or host.shape != tensor.shape:
        host = _host_like(tensor, pin_memory)
        host_cache[key] = host
    # expect: KVG001
    host.copy_(tensor, non_blocking=non_blocking)
    return host


def reload_tensor(host, device, non_blocking):
    dst = torch.empty(host.shape, dtype=host.dtype, device=device)
    dst.copy_(host, non_blocking=non_blocking)
    return dst


def adam_state_items(optimizer):
    for group_id, group in enumerate(optimizer.param_groups):
        for param in group["params"]:
            state = optimizer.state.get(param, {})
            for name in ("exp_avg", "exp_avg_sq"):
                if name in state:
                    yield (group_id, id(param), name), state, name
