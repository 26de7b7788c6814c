# SPDX-License-Identifier: Apache-2.0
# Standard
from dataclasses import dataclass

# Third Party
import torch

MEMORY_FORMAT_KV_2TD = "KV_2TD"


@dataclass
class LayerwiseConfig:
    num_layers: int
    hidden_dim_size: int
    chunk_size: int = 256
    max_tokens: int = 32000
    dtype: torch.dtype = torch.bfloat16
    device: str = "cuda"
    prefetch_workers: int = 1

    def buffer_shape(self) -> torch.Size:
        return torch.Size([2, self.max_tokens, self.hidden_dim_size])
