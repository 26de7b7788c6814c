"""Block copies between the paged GPU KV cache and the pinned CPU mirror."""

from __future__ import annotations

import numpy as np
import torch


def swap_out_blocks(
    gpu_tensor: torch.Tensor, cpu_tensor: torch.Tensor, src_to_dst: np.ndarray
) -> None:
    for src_block, dst_block in src_to_dst:
        cpu_tensor[int(dst_block)].copy_(gpu_tensor[int(src_block)], non_blocking=True)


def swap_in_blocks(
    cpu_tensor: torch.Tensor, gpu_tensor: torch.Tensor, src_to_dst: np.ndarray
) -> None:
    for src_block, dst_block in src_to_dst:
        gpu_tensor[int(dst_block)].copy_(cpu_tensor[int(src_block)], non_blocking=True)
