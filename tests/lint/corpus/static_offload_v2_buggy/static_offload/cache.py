import logging
from typing import Any, Dict, List, Optional, Tuple, Union

import torch

from .buffers import create_key_value_tensors, write_positions
from .constants import DEFAULT_CACHE_DTYPE, DEFAULT_OFFLOAD_DEVICE, NUM_DEVICE_BUFFERS
from .prefetch import LayerPrefetcher

logger = logging.getLogger(__name__)


class OffloadedStaticCache:
    """
    Static cache that keeps the first layer on the accelerator and every other layer on the
    offload device. Offloaded layers are streamed through a pair of device buffers: while layer
    `i` is being computed, layer `i + 1` is copied into the other buffer.
    """

    def __init__(
        self,
        config,
        max_batch_size: int,
        max_cache_len: Optional[int],
        device: Union[str, torch.device],
        dtype: Optional[torch.dtype] = None,
        offload_device: Union[str, torch.device] = DEFAULT_OFFLOAD_DEVICE,
    ) -> None:
        self.max_batch_size = max_batch_size
        self.max_cache_len = config.max_position_embeddings if max_cache_len is None else max_cache_len
        self.device = torch.device(device)
        self.offload_device = torch.device(offload_device)
        self.dtype = dtype if dtype is not None else DEFAULT_CACHE_DTYPE

        head_dim = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
        num_kv_heads = getattr(config, "num_key_value_heads", None) or config.num_attention_heads
        shape = (max_batch_size, num_kv_heads, self.max_cache_len, head_dim)

        self.key_cache: List[torch.Tensor] = []
        self.value_cache: List[torch.Tensor] = []
        for i in range(config.num_hidden_layers):
            target = self.device if i == 0 else self.offload_device
            key, value = create_key_value_tensors(shape, self.dtype, target)
            self.key_cache.append(key)
            self.value_cache.append(value)

        device_keys, device_values = [], []
        for _ in range(NUM_DEVICE_BUFFERS):
            key, value = create_key_value_tensors(shape, self.dtype, self.device)
            device_keys.append(key)
            device_values.append(value)

        self._prefetcher = LayerPrefetcher(
            self.device, self.key_cache, self.value_cache, device_keys, device_values
        )
        self._seen_tokens = 0

    def update(
        self,
        key_states: torch.Tensor,
        value_states: torch.Tensor,
        layer_idx: int,
        cache_kwargs: Optional[Dict[str, Any]] = None,
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        if layer_idx == 0:
            self._seen_tokens += key_states.shape[-2]
            k_out, v_out = self.key_cache[0], self.value_cache[0]
        else:
            self._prefetcher.wait()
            k_out, v_out = self._prefetcher.buffers_for(layer_idx)

        self._prefetcher.prefetch(layer_idx + 1)

        cache_position = cache_kwargs.get("cache_position") if cache_kwargs is not None else None
        if cache_position is None:
            k_out.copy_(key_states)
            v_out.copy_(value_states)
            return k_out, v_out

        write_positions(k_out, key_states, cache_position)
        write_positions(v_out, value_states, cache_position)

        if layer_idx != 0:
            host_position = cache_position.to(self.offload_device)
            host_keys = key_states.to(self.offload_device)
            host_values = value_states.to(self.offload_device)
            write_positions(self.key_cache[layer_idx], host_keys, host_position)
            write_positions(self.value_cache[layer_idx], host_values, host_position)
        return k_out, v_out

    def get_seq_length(self, layer_idx: Optional[int] = 0) -> int:
        return self._seen_tokens

    def get_max_cache_shape(self) -> Optional[int]:
        return self.max_cache_len
