# Copyright 2025 The HuggingFace Team. All rights reserved.
from typing import Any, Dict, List, Optional, Tuple

import torch

from .configuration import StaticCacheConfig
from .device_utils import allocate_host_layer, backend_module, current_stream, new_event, new_stream
from .utils import logging

logger = logging.get_logger(__name__)


class OffloadedStaticCache:
    """
    Static cache that keeps every layer but the first in host memory. While layer `i` runs, layer `i + 1` is
    prefetched into one of two device buffers on a dedicated stream; new key/value states are mirrored back to
    the host copy on a second stream.
    """

    is_compileable = False

    def __init__(self, config: StaticCacheConfig, device, dtype: torch.dtype = torch.float16):
        self.config = config
        self.device = torch.device(device)
        self.num_layers = config.num_hidden_layers
        self._backend = backend_module(self.device)
        shape = (config.max_batch_size, config.num_key_value_heads, config.max_cache_len, config.head_dim)

        self.key_cache: List[torch.Tensor] = [torch.zeros(shape, dtype=dtype, device=self.device)]
        self.value_cache: List[torch.Tensor] = [torch.zeros(shape, dtype=dtype, device=self.device)]
        for _ in range(1, self.num_layers):
            self.key_cache.append(allocate_host_layer(shape, dtype, config.offload_device, config.pin_memory))
            self.value_cache.append(allocate_host_layer(shape, dtype, config.offload_device, config.pin_memory))

        self._device_key_cache = [torch.zeros(shape, dtype=dtype, device=self.device) for _ in range(2)]
        self._device_value_cache = [torch.zeros(shape, dtype=dtype, device=self.device) for _ in range(2)]
        self._prefetch_stream = new_stream(self.device)
        self._offload_stream = new_stream(self.device)
        self._prefetch_events: Dict[int, Any] = {}
        self._seen_tokens = [0] * self.num_layers
        self._prefetch_layer(1)

    def get_seq_length(self, layer_idx: int = 0) -> int:
        return self._seen_tokens[layer_idx]

    def get_max_cache_shape(self) -> int:
        return self.config.max_cache_len

    def update(
        self,
        key_states: torch.Tensor,
        value_states: torch.Tensor,
        layer_idx: int,
        cache_kwargs: Optional[Dict[str, Any]] = None,
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        cache_position = cache_kwargs.get("cache_position") if cache_kwargs else None
        start = self._seen_tokens[layer_idx]
        end = start + key_states.shape[-2]
        self._seen_tokens[layer_idx] = end
        if cache_position is None:
            cache_position = torch.arange(start, end, device=self.device)

        if layer_idx == 0:
            k_out, v_out = self.key_cache[0], self.value_cache[0]
        else:
            current_stream(self.device).wait_stream(self._prefetch_stream)
            k_out = self._device_key_cache[layer_idx & 1]
            v_out = self._device_value_cache[layer_idx & 1]

        k_out.index_copy_(2, cache_position, key_states)
        v_out.index_copy_(2, cache_position, value_states)

        if layer_idx > 0:
            self._offload_new_states(layer_idx, key_states, value_states, start, end)
        self._prefetch_layer(layer_idx + 1)
        return k_out, v_out

    def _prefetch_layer(self, layer_idx: int) -> None:
        if layer_idx <= 0 or layer_idx >= self.num_layers:
            return
        stream = self._prefetch_stream
        marker = new_event(self.device)
        marker.record(current_stream(self.device))
        self._prefetch_events[layer_idx] = marker
        stream.wait_event(marker)
        stream.wait_stream(self._offload_stream)
        with self._backend.stream(stream):
            self._device_key_cache[layer_idx & 1].copy_(self.key_cache[layer_idx], non_blocking=True)
            self._device_value_cache[layer_idx & 1].copy_(self.value_cache[layer_idx], non_blocking=True)

    def _offload_new_states(self, layer_idx: int, key_states: torch.Tensor, value_states: torch.Tensor,
                            start: int, end: int) -> None:
        stream = self._offload_stream
        ready = self._prefetch_events.get(layer_idx)
        if ready is not None:
            stream.wait_event(ready)
        with self._backend.stream(stream):
            # expect: KVG001
            self.key_cache[layer_idx][:, :, start:end].copy_(key_states, non_blocking=True)
            # expect: KVG001
            self.value_cache[layer_idx][:, :, start:end].copy_(value_states, non_blocking=True)
        key_states.record_stream(stream)
        value_states.record_stream(stream)

    def reset(self) -> None:
        self._offload_stream.synchronize()
        self._prefetch_stream.synchronize()
        for layer_idx in range(self.num_layers):
            self.key_cache[layer_idx].zero_()
            self.value_cache[layer_idx].zero_()
        self._seen_tokens = [0] * self.num_layers
        self._prefetch_events.clear()
        logger.debug("OffloadedStaticCache reset")
        self._prefetch_layer(1)
