# SPDX-License-Identifier: Apache-2.0
# Standard
from typing import List, Sequence, Tuple

# Third Party
import torch


def load_chunks(
    kv_layers: List[torch.Tensor],
    host_chunks: Sequence[torch.Tensor],
    token_spans: Sequence[Tuple[int, int]],
) -> int:
    """Scatter pinned ``[num_layers, 2, n, hidden]`` chunks into the live KV cache."""
    loaded = 0
    for chunk, (start, end) in zip(host_chunks, token_spans, strict=True):
        for layer_id, kv in enumerate(kv_layers):
            kv[:, start:end].copy_(chunk[layer_id], non_blocking=True)
        loaded += end - start
    return loaded


def load_positions(host_positions: torch.Tensor, device: torch.device) -> torch.Tensor:
    positions = torch.empty(host_positions.shape, dtype=host_positions.dtype, device=device)
    positions.copy_(host_positions, non_blocking=True)
    return positions
