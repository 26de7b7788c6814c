from dataclasses import dataclass
from typing import Tuple

import torch

from .constants import (DEFAULT_HOST_BLOCKS, KV_FACTOR, MIN_FREE_PRIMARY_BLOCKS,
                        TOKENS_PER_BLOCK)


@dataclass
class KvCacheHostConfig:
    num_primary_blocks: int
    num_layers: int
    num_kv_heads: int
    head_dim: int
    num_host_blocks: int = DEFAULT_HOST_BLOCKS
    tokens_per_block: int = TOKENS_PER_BLOCK
    min_free_blocks: int = MIN_FREE_PRIMARY_BLOCKS
    dtype: torch.dtype = torch.float16

    @property
    def block_shape(self) -> Tuple[int, ...]:
        return (self.num_layers, KV_FACTOR, self.tokens_per_block,
                self.num_kv_heads, self.head_dim)

    def blocks_for(self, num_tokens: int) -> int:
        return -(-num_tokens // self.tokens_per_block)
