"""Per-block copies between the device KV pool and the host pool.

Both pools are laid out as [num_blocks, num_layers, 2, tokens_per_block, heads * head_dim].
"""

from typing import Sequence

import torch


def onboard_blocks(
    device_pool: torch.Tensor, host_pool: torch.Tensor, pairs: Sequence[tuple[int, int]]
) -> int:
    """Copy host slots into device blocks on the current stream. pairs: (host_slot, block_id)."""
    for host_slot, block_id in pairs:
        device_pool[block_id].copy_(host_pool[host_slot], non_blocking=True)
    return len(pairs)


def offload_blocks(
    host_pool: torch.Tensor, device_pool: torch.Tensor, pairs: Sequence[tuple[int, int]]
) -> int:
    """Copy device blocks into host slots on the current stream. pairs: (block_id, host_slot)."""
    for block_id, host_slot in pairs:
        host_pool[host_slot].copy_(device_pool[block_id], non_blocking=True)
    return len(pairs)
