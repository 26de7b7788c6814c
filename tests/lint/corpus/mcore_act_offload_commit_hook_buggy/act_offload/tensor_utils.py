# Copyright (c) 2024, NVIDIA CORPORATION. All rights reserved.
"""Helpers moving single activation tensors between device and host."""

from typing import Tuple

import torch

MIN_OFFLOADED_TENSOR_SIZE = 1024 * 1024


def tensor_need_offloading_checker(tensor: torch.Tensor) -> bool:
    return tensor.is_cuda and tensor.numel() >= MIN_OFFLOADED_TENSOR_SIZE and not isinstance(
        tensor, torch.nn.Parameter)


def offload(src_tensor: torch.Tensor) -> Tuple[torch.device, torch.Tensor]:
    cpu_backup = torch.empty(
        src_tensor.size(), dtype=src_tensor.dtype, layout=src_tensor.layout, device="cpu", pin_memory=True)
    # expect: KVG001
    cpu_backup.copy_(src_tensor, non_blocking=True)
    return src_tensor.device, cpu_backup


def reload(state: Tuple[torch.device, torch.Tensor]) -> torch.Tensor:
    dev, cpu_backup = state
    return cpu_backup.to(dev, non_blocking=True)
