"""KV cache sizing."""

from dataclasses import dataclass


@dataclass
class KvCacheConfig:
    num_layers: int = 32
    num_kv_heads: int = 8
    head_dim: int = 128
    tokens_per_block: int = 64
    dtype_bytes: int = 2
    max_primary_blocks: int = 4096
    max_secondary_blocks: int = 16384
    enable_partial_reuse: bool = True

    @property
    def block_bytes(self) -> int:
        # K and V of every layer for one block of tokens
        return 2 * self.num_layers * self.num_kv_heads * self.head_dim * self.tokens_per_block * self.dtype_bytes
