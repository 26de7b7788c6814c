from dataclasses import dataclass

import torch

DEFAULT_TOKENS_PER_BLOCK = 32
# blocks below this retention priority are dropped instead of offloaded
DEFAULT_SECONDARY_OFFLOAD_MIN_PRIORITY = 35


@dataclass
class KvCacheConfig:
    num_primary_blocks: int
    num_secondary_blocks: int = 0
    tokens_per_block: int = DEFAULT_TOKENS_PER_BLOCK
    num_layers: int = 32
    num_kv_heads: int = 8
    head_dim: int = 128
    dtype: torch.dtype = torch.bfloat16
    secondary_offload_min_priority: int = DEFAULT_SECONDARY_OFFLOAD_MIN_PRIORITY
    enable_block_reuse: bool = True

    @property
    def host_cache_enabled(self) -> bool:
        return self.num_secondary_blocks > 0
