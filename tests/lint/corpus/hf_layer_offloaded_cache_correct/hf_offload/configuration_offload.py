from __future__ import annotations

from dataclasses import dataclass, field

import torch


@dataclass
class OffloadConfig:
    """Subset of the model config the offloaded cache needs to size its buffers."""

    num_hidden_layers: int
    num_key_value_heads: int
    head_dim: int
    max_batch_size: int = 1
    max_cache_len: int = 4096
    dtype: torch.dtype = torch.float16
    # Number of device-resident layer slots. Two is enough for the
    # "compute i / prefetch i+1 / evict i-1" rotation.
    num_device_slots: int = 2
    extra: dict = field(default_factory=dict)

    @classmethod
    def from_model_config(cls, config, max_batch_size: int = 1, max_cache_len: int | None = None) -> "OffloadConfig":
        head_dim = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
        return cls(
            num_hidden_layers=config.num_hidden_layers,
            num_key_value_heads=getattr(config, "num_key_value_heads", config.num_attention_heads),
            head_dim=head_dim,
            max_batch_size=max_batch_size,
            max_cache_len=max_cache_len or config.max_position_embeddings,
            dtype=getattr(config, "torch_dtype", None) or torch.float16,
        )

    @property
    def layer_shape(self) -> tuple[int, int, int, int, int]:
        # (key/value, batch, kv heads, positions, head_dim)
        return (2, self.max_batch_size, self.num_key_value_heads, self.max_cache_len, self.head_dim)
