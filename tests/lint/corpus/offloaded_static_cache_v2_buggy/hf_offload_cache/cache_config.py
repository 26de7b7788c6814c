# coding=utf-8
# Copyright 2024 The HuggingFace Team. All rights reserved.
from dataclasses import dataclass
from typing import Optional, Tuple, Union

import torch


@dataclass
class OffloadedCacheConfig:
    max_batch_size: int
    max_cache_len: int
    num_hidden_layers: int
    num_key_value_heads: int
    head_dim: int
    dtype: torch.dtype = torch.float16
    device: Optional[Union[str, torch.device]] = None
    offload_device: Union[str, torch.device] = "cpu"

    @classmethod
    def from_model_config(cls, config, max_batch_size: int, max_cache_len: int, **kwargs) -> "OffloadedCacheConfig":
        head_dim = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
        kv_heads = getattr(config, "num_key_value_heads", None) or config.num_attention_heads
        return cls(
            max_batch_size=max_batch_size,
            max_cache_len=max_cache_len,
            num_hidden_layers=config.num_hidden_layers,
            num_key_value_heads=kv_heads,
            head_dim=head_dim,
            **kwargs,
        )

    @property
    def layer_shape(self) -> Tuple[int, int, int, int]:
        return (self.max_batch_size, self.num_key_value_heads, self.max_cache_len, self.head_dim)
