# Copyright 2024 The HuggingFace Team. All rights reserved.
from dataclasses import dataclass
from typing import Optional

import torch

NUM_DEVICE_LAYER_BUFFERS = 2
DEFAULT_OFFLOAD_DEVICE = "cpu"


@dataclass
class OffloadedStaticCacheConfig:
    max_batch_size: int
    max_cache_len: int
    num_hidden_layers: int
    num_key_value_heads: int
    head_dim: int
    dtype: torch.dtype = torch.float16
    offload_device: str = DEFAULT_OFFLOAD_DEVICE
    device: Optional[str] = None

    @classmethod
    def from_model_config(cls, config, max_batch_size: int, max_cache_len: int, **kwargs):
        head_dim = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
        num_kv_heads = getattr(config, "num_key_value_heads", None) or config.num_attention_heads
        return cls(max_batch_size, max_cache_len, config.num_hidden_layers,
                   num_kv_heads, head_dim, **kwargs)

    @property
    def layer_shape(self):
        return (self.max_batch_size, self.num_key_value_heads, self.max_cache_len, self.head_dim)
