# SPDX-License-Identifier: Apache-2.0
# Standard
from dataclasses import dataclass
from typing import List

# Third Party
import torch


@dataclass
class MemoryObj:
    key: str
    tensor: torch.Tensor  # pinned host tensor, [2, block_size, num_heads, head_dim]
    layer_id: int

    @property
    def byte_array(self) -> memoryview:
        return memoryview(self.tensor.view(torch.uint8).numpy()).cast("B")


def allocate_layer_objs(
    keys: List[str], num_layers: int, shape: torch.Size, dtype: torch.dtype
) -> List[List[MemoryObj]]:
    return [
        [
            MemoryObj(
                key=f"{key}@{layer_id}",
                tensor=torch.empty(shape, dtype=dtype, pin_memory=True),
                layer_id=layer_id,
            )
            for key in keys
        ]
        for layer_id in range(num_layers)
    ]
