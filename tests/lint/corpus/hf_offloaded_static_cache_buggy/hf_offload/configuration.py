# coding=utf-8
# Copyright 2024 The HuggingFace Inc. team.
from dataclasses import dataclass
from typing import Optional

import torch


@dataclass
class OffloadCacheConfig:
    num_hidden_layers: int
    num_key_value_heads: int
    head_dim: int
    max_batch_size: int = 1
    max_cache_len: int = 4096
    dtype: torch.dtype = torch.bfloat16
    offload_device: str = "cpu"
    device: Optional[str] = None
