# SPDX-License-Identifier: Apache-2.0
# Standard
from dataclasses import dataclass

# Third Party
import torch


@dataclass
class RetrieveConfig:
    num_layers: int
    num_kv_heads: int
    head_size: int
    chunk_size: int = 256
    kv_dtype: torch.dtype = torch.bfloat16
    use_staging_buffer: bool = True

    @property
    def hidden_dim(self) -> int:
        return self.num_kv_heads * self.head_size
