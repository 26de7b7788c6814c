from dataclasses import dataclass

import torch


@dataclass
class CacheOffloadConfig:
    """Shape and placement settings of a :class:`HostOffloadedCache`."""

    num_hidden_layers: int
    num_key_value_heads: int
    head_dim: int
    max_batch_size: int = 1
    max_cache_len: int = 4096
    cache_dtype: torch.dtype = torch.float16
    offload_stream_priority: int = 0
    prefetch_stream_priority: int = -1
    pin_host_memory: bool = True

    def host_shape(self) -> tuple[int, int, int, int]:
        return (
            self.max_batch_size,
            self.num_key_value_heads,
            self.max_cache_len,
            self.head_dim,
        )
