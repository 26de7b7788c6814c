# SPDX-License-Identifier: Apache-2.0
# Standard
from typing import Tuple

# Third Party
import torch

# First Party
from lmc_store.storage_backend import MemoryObj

KVCaches = Tuple[Tuple[torch.Tensor, torch.Tensor], ...]


class VLLMNestedTupleGPUConnector:
    """Moves KV between a nested tuple of [num_tokens, heads, head_size]
    K/V tensors and pinned KV_2LTD memory objects."""

    def __init__(self, hidden_dim_size: int, num_layers: int):
        self.hidden_dim_size = hidden_dim_size
        self.num_layers = num_layers

    def get_shape(self, num_tokens: int) -> torch.Size:
        return torch.Size([2, self.num_layers, num_tokens, self.hidden_dim_size])

    def from_gpu(
        self,
        memory_obj: MemoryObj,
        start: int,
        end: int,
        *,
        kvcaches: KVCaches,
        stream: torch.cuda.Stream,
    ) -> None:
        assert memory_obj.tensor is not None
        with torch.cuda.stream(stream):
            for layer_id, layer in enumerate(kvcaches):
                for kv_idx, cache in enumerate(layer):
                    memory_obj.tensor[kv_idx, layer_id].copy_(
                        cache[start:end].reshape(-1, self.hidden_dim_size),
                        non_blocking=True,
                    )
