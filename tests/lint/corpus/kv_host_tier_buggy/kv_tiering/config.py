from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class KvCacheTierConfig:
    num_layers: int
    num_kv_heads: int
    head_dim: int
    tokens_per_block: int = 32
    num_primary_blocks: int = 4096
    num_secondary_blocks: int = 16384
    dtype: torch.dtype = torch.float16
    max_transfer_workers: int = 1

    @property
    def block_shape(self) -> tuple[int, ...]:
        return (self.num_layers, 2, self.tokens_per_block, self.num_kv_heads,
                self.head_dim)
