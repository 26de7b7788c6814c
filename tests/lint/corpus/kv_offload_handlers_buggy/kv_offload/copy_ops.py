# SPDX-License-Identifier: Apache-2.0
"""Block copy helpers between the GPU KV cache and the CPU offload pool."""

import numpy as np
import torch


def swap_out_blocks(
    gpu_tensors: list[torch.Tensor],
    cpu_tensors: list[torch.Tensor],
    gpu_block_ids: np.ndarray,
    cpu_block_ids: np.ndarray,
) -> int:
    num_bytes = 0
    for gpu_tensor, cpu_tensor in zip(gpu_tensors, cpu_tensors):
        for src, dst in zip(gpu_block_ids.tolist(), cpu_block_ids.tolist()):
            # expect: KVG001
            cpu_tensor[dst].copy_(gpu_tensor[src], non_blocking=True)
            num_bytes += gpu_tensor.shape[1]
    return num_bytes


def swap_in_blocks(
    cpu_tensors: list[torch.Tensor],
    gpu_tensors: list[torch.Tensor],
    cpu_block_ids: np.ndarray,
    gpu_block_ids: np.ndarray,
) -> int:
    num_bytes = 0
    for cpu_tensor, gpu_tensor in zip(cpu_tensors, gpu_tensors):
        for src, dst in zip(cpu_block_ids.tolist(), gpu_block_ids.tolist()):
            # expect: KVG004
            gpu_tensor[dst].copy_(cpu_tensor[src], non_blocking=True)
            num_bytes += gpu_tensor.shape[1]
    return num_bytes
