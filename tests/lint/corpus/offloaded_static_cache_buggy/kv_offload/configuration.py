# coding=utf-8
# Copyright 2024 The HuggingFace Inc. team.
#
# Licensed under the Apache License, Version 2.0 (the "License");
from dataclasses import dataclass
from typing import Optional, Tuple

import torch


@dataclass
class OffloadedStaticCacheConfig:
    num_hidden_layers: int
    num_key_value_heads: int
    head_dim: int
    max_batch_size: int = 1
    max_cache_len: int = 4096
    dtype: torch.dtype = torch.float16
    device: Optional[str] = None
    offload_device: str = "cpu"

    @classmethod
    def from_model_config(cls, config, max_batch_size: int, max_cache_len: int, dtype=torch.float16, device=None):
        head_dim = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
        num_kv_heads = getattr(config, "num_key_value_heads", None) or config.num_attention_heads
        return cls(
            num_hidden_layers=config.num_hidden_layers,
            num_key_value_heads=num_kv_heads,
            head_dim=head_dim,
            max_batch_size=max_batch_size,
            max_cache_len=max_cache_len,
            dtype=dtype,
            device=device,
        )

    @property
    def layer_shape(self) -> Tuple[int, int, int, int]:
        return (self.max_batch_size, self.num_key_value_heads, self.max_cache_len, self.head_dim)
