# SPDX-License-Identifier: Apache-2.0
# Standard
from dataclasses import dataclass, field
from typing import List, Tuple

# Third Party
import torch


@dataclass
class MemoryObj:
    key: str
    tensor: torch.Tensor
    ref_count: int = field(default=1)

    def ref_count_down(self) -> None:
        self.ref_count -= 1


class PinnedMemoryAllocator:
    """Hands out pinned CPU tensors shaped [2, num_tokens, hidden_dim]."""

    def __init__(self, hidden_dim_size: int, dtype: torch.dtype):
        self.hidden_dim_size = hidden_dim_size
        self.dtype = dtype

    def allocate(self, key: str, num_tokens: int) -> MemoryObj:
        shape: Tuple[int, ...] = (2, num_tokens, self.hidden_dim_size)
        tensor = torch.empty(shape, dtype=self.dtype, pin_memory=True)
        return MemoryObj(key=key, tensor=tensor)

    def allocate_layers(
        self, keys: List[str], lengths: List[int], num_layers: int
    ) -> List[List[MemoryObj]]:
        return [
            [self.allocate(f"{key}@{layer}", n) for key, n in zip(keys, lengths)]
            for layer in range(num_layers)
        ]
