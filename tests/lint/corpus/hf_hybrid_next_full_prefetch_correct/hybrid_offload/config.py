from dataclasses import dataclass, field
from typing import List

import torch


@dataclass
class HybridCacheConfig:
    num_hidden_layers: int
    num_key_value_heads: int
    head_dim: int
    max_cache_len: int
    sliding_window: int = 512
    # Gemma-2/3 style interleaving: one full-attention layer after every few sliding ones
    sliding_window_pattern: int = 6
    max_batch_size: int = 1
    dtype: torch.dtype = torch.bfloat16
    offload_device: str = "cpu"
    layer_types: List[str] = field(default_factory=list)

    def __post_init__(self):
        if not self.layer_types:
            self.layer_types = [
                "full_attention" if (i + 1) % self.sliding_window_pattern == 0 else "sliding_attention"
                for i in range(self.num_hidden_layers)
            ]
