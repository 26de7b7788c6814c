# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
"""Helpers that move gradients to host and updated params back to device."""

from typing import Dict, Iterable, Tuple

import torch


def _pinned_like(param: torch.Tensor, pin: bool) -> torch.Tensor:
    return torch.empty(param.shape, dtype=param.dtype, device="cpu", pin_memory=pin)


def copy_grads_to_host(
    pairs: Iterable[Tuple[torch.Tensor, torch.Tensor]],
    host_grads: Dict[torch.Tensor, torch.Tensor],
    pin: bool,
) -> None:
    """Issue D2H copies of device grads into pinned host grads.

    Runs on whatever stream is current; the caller selects it.
    """
    for cpu_param, gpu_param in pairs:
        grad = getattr(gpu_param, "decoupled_grad", gpu_param.grad)
        if grad is None:
            cpu_param.grad = None
            continue
        if cpu_param not in host_grads:
            host_grads[cpu_param] = _pinned_like(cpu_param, pin)
        cpu_param.grad = host_grads[cpu_param]
        # expect: KVG001
        host_grads[cpu_param].copy_(grad, non_blocking=True)


def copy_params_to_device(pairs: Iterable[Tuple[torch.Tensor, torch.Tensor]]) -> None:
    for cpu_param, gpu_param in pairs:
        gpu_param.data.copy_(cpu_param.data, non_blocking=True)
