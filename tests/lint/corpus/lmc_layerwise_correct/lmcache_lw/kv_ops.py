# SPDX-License-Identifier: Apache-2.0
"""Block-level copies between vLLM paged KV layers and LMCache chunks."""

from typing import List

import torch


def chunk_shape(num_tokens: int, num_heads: int, head_size: int) -> torch.Size:
    return torch.Size((2, num_tokens, num_heads, head_size))


def chunk_block_ids(block_ids: List[int], start: int, end: int, block_size: int) -> List[int]:
    first = start // block_size
    last = (end + block_size - 1) // block_size
    return block_ids[first:last]


def gather_layer_chunk(
    kv_layer: torch.Tensor, block_ids: List[int], out: torch.Tensor, block_size: int
) -> None:
    """kv_layer: [2, num_blocks, block_size, H, D]; out: [2, num_tokens, H, D]."""
    num_tokens = out.shape[1]
    for i, block_id in enumerate(block_ids):
        lo = i * block_size
        hi = min(lo + block_size, num_tokens)
        out[:, lo:hi].copy_(kv_layer[:, block_id, : hi - lo], non_blocking=True)
