# SPDX-License-Identifier: Apache-2.0
"""Block-granular copies between the GPU KV cache and its CPU mirror."""

import numpy as np
import torch


def swap_blocks(
    src_tensors: list[torch.Tensor],
    dst_tensors: list[torch.Tensor],
    src_block_ids: np.ndarray,
    dst_block_ids: np.ndarray,
) -> int:
    """Copy whole blocks on the current stream. Returns the bytes moved."""
    num_bytes = 0
    pairs = list(zip(src_block_ids.tolist(), dst_block_ids.tolist()))
    for src, dst in zip(src_tensors, dst_tensors):
        for s, d in pairs:
            dst[d].copy_(src[s], non_blocking=True)
        num_bytes += len(pairs) * src[0].numel() * src.element_size()
    return num_bytes
