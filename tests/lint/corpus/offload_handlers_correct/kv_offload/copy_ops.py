from __future__ import annotations

import numpy as np
import torch


def expand_block_ids(block_ids: np.ndarray, block_size_factor: int) -> np.ndarray:
    """Expand offloaded block ids into the matching GPU-sized sub-block ids."""
    if block_size_factor == 1:
        return block_ids.astype(np.int64)
    base = block_ids.astype(np.int64)[:, None] * block_size_factor
    return (base + np.arange(block_size_factor, dtype=np.int64)[None, :]).ravel()


def swap_blocks(
    src_tensors: list[torch.Tensor],
    dst_tensors: list[torch.Tensor],
    src_ids: np.ndarray,
    dst_ids: np.ndarray,
) -> int:
    """Copy whole pages between paged caches on the current stream."""
    num_bytes = 0
    pairs = list(zip(src_ids.tolist(), dst_ids.tolist()))
    for src, dst in zip(src_tensors, dst_tensors):
        for s, d in pairs:
            dst[d].copy_(src[s], non_blocking=True)
        num_bytes += len(pairs) * src[0].numel() * src.element_size()
    return num_bytes
