"""Single-tensor moves between device and pinned host memory."""
from __future__ import annotations

import torch


def offload_to_host(src_tensor: torch.Tensor, pin_memory: bool = True):
    cpu_backup = torch.empty(
        src_tensor.size(),
        dtype=src_tensor.dtype,
        layout=src_tensor.layout,
        device="cpu",
        pin_memory=pin_memory,
    )
    cpu_backup.copy_(src_tensor, non_blocking=pin_memory)
    return src_tensor.device, cpu_backup


def reload_to_device(state, non_blocking: bool = True) -> torch.Tensor:
    dev, cpu_backup = state
    return cpu_backup.to(dev, non_blocking=non_blocking)
