from typing import List

import torch


def copy_paged_to_chunk(
    dst: torch.Tensor, kv_layer: torch.Tensor, block_ids: List[int], block_size: int
) -> None:
    """Copy whole vLLM pages of one layer into a contiguous pinned chunk.

    ``kv_layer`` has layout [2, num_blocks, block_size, num_heads, head_size],
    ``dst`` has layout [2, num_tokens, num_heads, head_size].
    """
    for i, block_id in enumerate(block_ids):
        dst[:, i * block_size : (i + 1) * block_size].copy_(
            kv_layer[:, block_id], non_blocking=True
        )


def copy_chunk_to_paged(
    kv_layer: torch.Tensor, src: torch.Tensor, block_ids: List[int], block_size: int
) -> None:
    for i, block_id in enumerate(block_ids):
        kv_layer[:, block_id].copy_(
            src[:, i * block_size : (i + 1) * block_size], non_blocking=True
        )
