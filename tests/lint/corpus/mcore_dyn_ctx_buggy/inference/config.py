# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.

from dataclasses import dataclass

import torch

DEFAULT_CHUNK_SIZE_TOKENS = 256
DEFAULT_HOST_SWAP_FRACTION = 0.25


@dataclass
class DynamicInferenceConfig:
    num_layers: int
    num_attention_heads_per_partition: int
    head_dim: int
    max_requests: int = 256
    max_chunks: int = 4096
    chunk_size_tokens: int = DEFAULT_CHUNK_SIZE_TOKENS
    host_swap_fraction: float = DEFAULT_HOST_SWAP_FRACTION
    params_dtype: torch.dtype = torch.bfloat16

    @property
    def num_host_chunks(self) -> int:
        return max(1, int(self.max_chunks * self.host_swap_fraction))
