from dataclasses import dataclass
from typing import Any, Union

import torch


@dataclass
class OffloadCacheConfig:
    """Shape and placement of an offloaded static key/value cache."""

    max_batch_size: int
    max_cache_len: int
    num_hidden_layers: int
    num_key_value_heads: int
    head_dim: int
    dtype: torch.dtype = torch.float16
    device: Union[str, torch.device] = "cuda"
    offload_device: Union[str, torch.device] = "cpu"

    @classmethod
    def from_model_config(cls, config: Any, max_batch_size: int, max_cache_len: int, **kwargs) -> "OffloadCacheConfig":
        head_dim = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
        num_kv_heads = getattr(config, "num_key_value_heads", None) or config.num_attention_heads
        return cls(
            max_batch_size=max_batch_size,
            max_cache_len=max_cache_len,
            num_hidden_layers=config.num_hidden_layers,
            num_key_value_heads=num_kv_heads,
            head_dim=head_dim,
            dtype=kwargs.pop("dtype", getattr(config, "torch_dtype", None) or torch.float16),
            **kwargs,
        )

    @property
    def layer_shape(self):
        return (self.max_batch_size, self.num_key_value_heads, self.max_cache_len, self.head_dim)
