from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import torch


@dataclass
class OffloadedStaticCacheConfig:
    """Shape and placement of a static key/value cache whose layers live on the host."""

    num_hidden_layers: int
    num_key_value_heads: int
    head_dim: int
    max_batch_size: int
    max_cache_len: int
    dtype: torch.dtype = torch.float16
    device: str = "cuda"
    offload_device: str = "cpu"
    pin_memory: bool = True

    @property
    def cache_shape(self) -> tuple[int, int, int, int]:
        return (self.max_batch_size, self.num_key_value_heads, self.max_cache_len, self.head_dim)

    @classmethod
    def from_model_config(
        cls, config, max_batch_size: int, max_cache_len: Optional[int] = None, **kwargs
    ) -> "OffloadedStaticCacheConfig":
        head_dim = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
        num_kv_heads = getattr(config, "num_key_value_heads", None) or config.num_attention_heads
        return cls(
            num_hidden_layers=config.num_hidden_layers,
            num_key_value_heads=num_kv_heads,
            head_dim=head_dim,
            max_batch_size=max_batch_size,
            max_cache_len=max_cache_len or config.max_position_embeddings,
            **kwargs,
        )
