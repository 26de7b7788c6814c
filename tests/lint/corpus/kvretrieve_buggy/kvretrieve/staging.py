# SPDX-License-Identifier: Apache-2.0
# Standard
from typing import List

# Third Party
import torch

# First Party
from kvretrieve.config import RetrieveConfig


class GPUStagingBuffer:
    """One chunk worth of KV in KV_2LTD layout: [2, num_layers, chunk, hidden]."""

    def __init__(self, config: RetrieveConfig, device: torch.device):
        shape = (2, config.num_layers, config.chunk_size, config.hidden_dim)
        self.tensor = torch.empty(shape, dtype=config.kv_dtype, device=device)

    def load(self, host_tensor: torch.Tensor, num_tokens: int) -> torch.Tensor:
        dst = self.tensor[:, :, :num_tokens]
        # expect: KVG004
        dst.copy_(host_tensor, non_blocking=True)
        return dst


def scatter_to_paged(
    staged: torch.Tensor, kvcaches: List[torch.Tensor], slots: torch.Tensor
) -> None:
    """kvcaches[i]: [2, num_blocks, block_size, hidden]; staged: [2, L, T, hidden]."""
    for layer_id, kv in enumerate(kvcaches):
        flat = kv.view(2, -1, kv.shape[-1])
        flat.index_copy_(1, slots, staged[:, layer_id])
