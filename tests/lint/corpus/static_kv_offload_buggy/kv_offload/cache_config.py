from dataclasses import dataclass, field
from typing import Optional

import torch


@dataclass
class OffloadedCacheConfig:
    """Shape and placement of an offloaded static key/value cache."""

    num_hidden_layers: int
    num_key_value_heads: int
    head_dim: int
    max_batch_size: int = 1
    max_cache_len: int = 4096
    dtype: torch.dtype = torch.float16
    device: Optional[torch.device] = None
    offload_device: torch.device = field(default_factory=lambda: torch.device("cpu"))

    def __post_init__(self) -> None:
        if self.device is None:
            self.device = torch.device("cuda", torch.cuda.current_device())

    @property
    def layer_shape(self) -> tuple:
        return (self.max_batch_size, self.num_key_value_heads, self.max_cache_len, self.head_dim)
