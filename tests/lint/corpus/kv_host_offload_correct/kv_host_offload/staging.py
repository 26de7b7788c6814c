from typing import List, Sequence

import torch


def stage_blocks_to_host(host_buf: torch.Tensor, kv_layers: List[torch.Tensor], block_ids: Sequence[int]) -> None:
    """kv layer layout: [num_blocks, 2, block_size, heads, head_dim];
    host_buf layout: [num_layers, len(block_ids), 2, block_size, heads, head_dim]."""
    for layer_id, kv in enumerate(kv_layers):
        for i, block_id in enumerate(block_ids):
            host_buf[layer_id, i].copy_(kv[block_id], non_blocking=True)


def stage_blocks_to_device(kv_layers: List[torch.Tensor], host_buf: torch.Tensor, block_ids: Sequence[int]) -> None:
    for layer_id, kv in enumerate(kv_layers):
        for i, block_id in enumerate(block_ids):
            kv[block_id].copy_(host_buf[layer_id, i], non_blocking=True)
