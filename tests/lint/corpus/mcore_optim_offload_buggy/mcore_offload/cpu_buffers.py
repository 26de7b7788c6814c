# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from typing import List

import torch


def empty_like_on_cpu(gpu_tensor: torch.Tensor, pin_memory: bool) -> torch.Tensor:
    return torch.empty(
        gpu_tensor.size(),
        dtype=gpu_tensor.dtype,
        layout=gpu_tensor.layout,
        device="cpu",
        pin_memory=pin_memory,
    )


def offload_shard_groups(
    shard_groups: List[List[torch.Tensor]],
    cpu_buffers: List[List[torch.Tensor]],
    d2h_stream: torch.Stream,
    pin_memory: bool,
) -> None:
    """Copy every shard of ``shard_groups`` into the matching CPU buffer."""
    if not cpu_buffers:
        for group in shard_groups:
            cpu_buffers.append([empty_like_on_cpu(t, pin_memory) for t in group])
    for group_idx, group in enumerate(shard_groups):
        for param_idx, gpu_tensor in enumerate(group):
            # expect: KVG001
            cpu_buffers[group_idx][param_idx].copy_(gpu_tensor, non_blocking=pin_memory)
            gpu_tensor.record_stream(d2h_stream)


def reload_shard_groups(
    shard_groups: List[List[torch.Tensor]], cpu_buffers: List[List[torch.Tensor]], allocate: bool
) -> None:
    for group_idx, group in enumerate(shard_groups):
        for param_idx, gpu_tensor in enumerate(group):
            cpu_buffer = cpu_buffers[group_idx][param_idx]
            if allocate:
                gpu_tensor.untyped_storage().resize_(cpu_buffer.untyped_storage().size())
            else:
                gpu_tensor.copy_(cpu_buffer, non_blocking=cpu_buffer.is_pinned())
