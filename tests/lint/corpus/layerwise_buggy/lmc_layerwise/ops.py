# SPDX-License-Identifier: Apache-2.0
# Standard
from typing import List, Sequence

# Third Party
import torch

# First Party
from lmc_layerwise.storage import MemoryObj


def copy_chunks_to_buffer(
    buffer: torch.Tensor,
    memory_objs: List[MemoryObj],
    starts: Sequence[int],
    ends: Sequence[int],
    offset: int,
) -> None:
    """memobj (pinned, KV_2TD) -> contiguous GPU staging buffer."""
    for start, end, memory_obj in zip(starts, ends, memory_objs, strict=True):
        # expect: KVG004
        buffer[:, start - offset : end - offset].copy_(
            memory_obj.tensor, non_blocking=True
        )


def scatter_to_paged(
    buffer: torch.Tensor, kv_layer: torch.Tensor, slot_mapping: torch.Tensor
) -> None:
    """GPU staging buffer [2, T, H] -> paged KV layer [2, blocks, block_size, ...]."""
    hidden = buffer.shape[-1]
    flat = kv_layer.view(2, -1, hidden)
    flat.index_copy_(1, slot_mapping, buffer)
