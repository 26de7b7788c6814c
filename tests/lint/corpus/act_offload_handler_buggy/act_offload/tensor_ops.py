# Copyright (c) 2024, NVIDIA CORPORATION. All rights reserved.
"""Copies between device activations and pinned host backups, issued on the caller's current stream."""
from typing import Tuple

import torch

HostBackup = Tuple[torch.device, torch.Tensor]


def offload_to_host(src: torch.Tensor, pin_memory: bool = True) -> HostBackup:
    cpu_backup = torch.empty(src.size(), dtype=src.dtype, layout=src.layout, device="cpu", pin_memory=pin_memory)
    # expect: KVG001
    cpu_backup.copy_(src, non_blocking=pin_memory)
    src.record_stream(torch.cuda.current_stream())
    return src.device, cpu_backup


def reload_to_device(backup: HostBackup, non_blocking: bool = True) -> torch.Tensor:
    device, cpu_backup = backup
    dst = torch.empty(cpu_backup.size(), dtype=cpu_backup.dtype, layout=cpu_backup.layout, device=device)
    dst.copy_(cpu_backup, non_blocking=non_blocking)
    return dst
