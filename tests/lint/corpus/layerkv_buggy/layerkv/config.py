# SPDX-License-Identifier: Apache-2.0
from dataclasses import dataclass

import torch

DEFAULT_CHUNK_SIZE = 256
KV_DIM = 2
DEFAULT_CPU_BUDGET = 8 << 30


@dataclass
class LayerwiseStoreConfig:
    chunk_size: int = DEFAULT_CHUNK_SIZE
    num_layers: int = 32
    num_kv_heads: int = 8
    head_size: int = 128
    kv_dtype: torch.dtype = torch.bfloat16
    save_unfull_chunk: bool = True
    local_cpu_budget: int = DEFAULT_CPU_BUDGET

    @property
    def hidden_dim(self) -> int:
        return self.num_kv_heads * self.head_size

    def chunk_shape(self, num_tokens: int) -> torch.Size:
        return torch.Size([KV_DIM, num_tokens, self.hidden_dim])
