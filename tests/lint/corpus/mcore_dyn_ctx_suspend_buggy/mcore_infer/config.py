# Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
from dataclasses import dataclass
from enum import Enum

import torch


class KVCacheManagementMode(str, Enum):
    PERSIST = "persist"
    OFFLOAD = "offload"
    RECOMPUTE = "recompute"


@dataclass
class InferenceConfig:
    num_layers: int
    num_attention_heads_per_partition: int
    head_dim: int
    block_size_tokens: int = 256
    num_blocks: int = 1024
    max_requests: int = 256
    params_dtype: torch.dtype = torch.bfloat16
    kv_cache_management_mode: KVCacheManagementMode = KVCacheManagementMode.PERSIST
