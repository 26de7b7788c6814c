from dataclasses import dataclass

import torch


@dataclass
class CacheConfig:
    num_hidden_layers: int
    num_attention_heads: int
    num_key_value_heads: int
    hidden_size: int
    max_batch_size: int = 1
    max_cache_len: int = 4096
    dtype: torch.dtype = torch.float16

    @property
    def head_dim(self):
        return self.hidden_size // self.num_attention_heads
