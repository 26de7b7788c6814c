# coding=utf-8
# Copyright 2024 The HuggingFace Team. All rights reserved.
import logging
from typing import Any, Dict, List, Optional, Tuple

import torch

from .cache_config import OffloadedCacheConfig
from .copy_ops import load_layer_into, write_back_tokens
from .device_utils import pinned_empty, resolve_device_module

logger = logging.getLogger(__name__)


class OffloadedStaticCache:
    """
    Static cache that keeps every layer but the first in pinned host memory and streams
    layers through two device slots while the previous layer is being computed.
    """

    is_compileable = False

    def __init__(self, config: OffloadedCacheConfig):
        self.config = config
        self.device, self._device_module = resolve_device_module(config.device)
        shape = config.layer_shape
        num_layers = config.num_hidden_layers

        self.key_cache: List[torch.Tensor] = [pinned_empty(shape, config.dtype) for _ in range(num_layers)]
        self.value_cache: List[torch.Tensor] = [pinned_empty(shape, config.dtype) for _ in range(num_layers)]
        self._layer0_key = torch.zeros(shape, dtype=config.dtype, device=self.device)
        self._layer0_value = torch.zeros(shape, dtype=config.dtype, device=self.device)
        self._device_key_cache = [torch.zeros(shape, dtype=config.dtype, device=self.device) for _ in range(2)]
        self._device_value_cache = [torch.zeros(shape, dtype=config.dtype, device=self.device) for _ in range(2)]

        self._prefetch_stream = self._device_module.Stream(device=self.device)
        self._loaded = [self._device_module.Event() for _ in range(2)]
        self._released = [self._device_module.Event() for _ in range(2)]
        self._resident: List[Optional[int]] = [None, None]
        self._seen_tokens = 0

    def __len__(self) -> int:
        return self.config.num_hidden_layers

    def get_seq_length(self, layer_idx: int = 0) -> int:
        return self._seen_tokens

    def get_max_cache_shape(self) -> int:
        return self.config.max_cache_len

    def prefetch_layer(self, layer_idx: int) -> None:
        if layer_idx <= 0 or layer_idx >= len(self):
            return
        slot = layer_idx & 1
        if self._resident[slot] == layer_idx:
            return
        self._prefetch_stream.wait_event(self._released[slot])
        load_layer_into(
            self._device_key_cache[slot],
            self._device_value_cache[slot],
            self.key_cache[layer_idx],
            self.value_cache[layer_idx],
            self._prefetch_stream,
            self._device_module,
        )
        self._loaded[slot].record(self._prefetch_stream)
        self._resident[slot] = layer_idx

    def _device_layer(self, layer_idx: int) -> Tuple[torch.Tensor, torch.Tensor]:
        if layer_idx == 0:
            return self._layer0_key, self._layer0_value
        slot = layer_idx & 1
        current = self._device_module.current_stream(self.device)
        current.wait_event(self._loaded[slot])
        if self._resident[slot] != layer_idx:
            logger.debug(f"layer {layer_idx} was not prefetched, loading it inline")
            self._device_key_cache[slot].copy_(self.key_cache[layer_idx])
            self._device_value_cache[slot].copy_(self.value_cache[layer_idx])
            self._resident[slot] = layer_idx
        return self._device_key_cache[slot], self._device_value_cache[slot]

    def update(
        self,
        key_states: torch.Tensor,
        value_states: torch.Tensor,
        layer_idx: int,
        cache_kwargs: Optional[Dict[str, Any]] = None,
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        cache_position = cache_kwargs.get("cache_position") if cache_kwargs is not None else None
        k_out, v_out = self._device_layer(layer_idx)
        if cache_position is None:
            cache_position = torch.arange(
                self._seen_tokens, self._seen_tokens + key_states.shape[-2], device=key_states.device
            )
        k_out.index_copy_(2, cache_position, key_states)
        v_out.index_copy_(2, cache_position, value_states)
        if layer_idx > 0:
            write_back_tokens(self.key_cache[layer_idx], key_states, self._seen_tokens)
            write_back_tokens(self.value_cache[layer_idx], value_states, self._seen_tokens)
            self._released[layer_idx & 1].record(self._device_module.current_stream(self.device))
        return k_out, v_out

    def layer_done(self, layer_idx: int, num_new_tokens: int) -> None:
        if layer_idx == len(self) - 1:
            self._seen_tokens += num_new_tokens

    def reset(self) -> None:
        self._device_module.current_stream(self.device).wait_stream(self._prefetch_stream)
        for tensor in (self._layer0_key, self._layer0_value, *self._device_key_cache, *self._device_value_cache):
            tensor.zero_()
        self._resident = [None, None]
        self._seen_tokens = 0
