# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the vLLM project
"""Block-granular copies between the paged GPU KV cache and pinned CPU blocks.

Both sides are viewed as int8 tensors of shape (num_blocks, page_size_bytes).
"""

import numpy as np
import torch


def coalesce_runs(src_to_dst: np.ndarray) -> list[tuple[int, int, int]]:
    """Turn an (N, 2) src->dst block mapping into (src, dst, count) runs."""
    runs: list[tuple[int, int, int]] = []
    if src_to_dst.size == 0:
        return runs
    src0, dst0 = int(src_to_dst[0, 0]), int(src_to_dst[0, 1])
    count = 1
    for s, d in src_to_dst[1:].tolist():
        if s == src0 + count and d == dst0 + count:
            count += 1
            continue
        runs.append((src0, dst0, count))
        src0, dst0, count = s, d, 1
    runs.append((src0, dst0, count))
    return runs


def gather_blocks_to_host(
    gpu_tensor: torch.Tensor,
    cpu_tensor: torch.Tensor,
    runs: list[tuple[int, int, int]],
) -> None:
    for src, dst, n in runs:
        cpu_tensor[dst : dst + n].copy_(gpu_tensor[src : src + n], non_blocking=True)


def scatter_blocks_to_device(
    cpu_tensor: torch.Tensor,
    gpu_tensor: torch.Tensor,
    runs: list[tuple[int, int, int]],
) -> None:
    for src, dst, n in runs:
        gpu_tensor[dst : dst + n].copy_(cpu_tensor[src : src + n], non_blocking=True)
