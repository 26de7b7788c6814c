# Copyright 2025 The HuggingFace Team. All rights reserved.
from dataclasses import dataclass
from typing import Optional


@dataclass
class StaticCacheConfig:
    max_batch_size: int
    max_cache_len: int
    num_hidden_layers: int
    num_key_value_heads: int
    head_dim: int
    offload_device: str = "cpu"
    pin_memory: bool = True

    @classmethod
    def from_model_config(cls, config, max_batch_size: int, max_cache_len: Optional[int] = None):
        head_dim = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
        num_kv_heads = getattr(config, "num_key_value_heads", None) or config.num_attention_heads
        return cls(
            max_batch_size=max_batch_size,
            max_cache_len=max_cache_len or config.max_position_embeddings,
            num_hidden_layers=config.num_hidden_layers,
            num_key_value_heads=num_kv_heads,
            head_dim=head_dim,
        )
