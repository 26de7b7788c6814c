from __future__ import annotations

import logging
from collections import deque

import torch

from .config import KvCacheConfig
from .device import device_type

logger = logging.getLogger("tensorrt_llm")


class KVBlockPool:
    """Primary (device) and secondary (pinned host) KV block pools."""

    def __init__(self, config: KvCacheConfig, num_layers: int,
                 num_kv_heads: int, head_dim: int, dtype: torch.dtype):
        block_shape = (num_layers, 2, config.tokens_per_block,
                       num_kv_heads * head_dim)
        elem_bytes = torch.empty((), dtype=dtype).element_size()
        bytes_per_block = elem_bytes
        for dim in block_shape:
            bytes_per_block *= dim
        self.num_primary_blocks = config.max_tokens // config.tokens_per_block
        self.num_secondary_blocks = config.host_cache_size // bytes_per_block
        self.primary = torch.empty((self.num_primary_blocks, *block_shape),
                                   dtype=dtype,
                                   device=device_type())
        self.secondary = torch.empty(
            (self.num_secondary_blocks, *block_shape),
            dtype=dtype,
            pin_memory=self.num_secondary_blocks > 0)
        self.free_primary: deque[int] = deque(range(self.num_primary_blocks))
        self.free_secondary: deque[int] = deque(
            range(self.num_secondary_blocks))
        logger.info("KV block pools: %d primary, %d secondary blocks",
                    self.num_primary_blocks, self.num_secondary_blocks)
