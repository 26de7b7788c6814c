from dataclasses import dataclass, field
from typing import Tuple

import torch


@dataclass
class StaticCacheConfig:
    num_hidden_layers: int
    num_key_value_heads: int
    head_dim: int
    max_batch_size: int = 1
    max_cache_len: int = 4096
    dtype: torch.dtype = torch.float16
    device: str = "cuda:0"
    offload_device: str = "cpu"
    extra: dict = field(default_factory=dict)

    @property
    def layer_shape(self) -> Tuple[int, int, int, int]:
        return (self.max_batch_size, self.num_key_value_heads, self.max_cache_len, self.head_dim)
