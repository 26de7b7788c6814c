# coding=utf-8
# Copyright 2024 The HuggingFace Inc. team.
"""Static KV cache kept in pinned host memory, two layers resident on the accelerator."""

import logging
from typing import Any, Dict, List, Optional, Tuple

import torch

from .configuration import OffloadCacheConfig

logger = logging.getLogger(__name__)


class OffloadedStaticCache:

    def __init__(self, config: OffloadCacheConfig) -> None:
        self.config = config
        self.device = torch.device(config.device or torch.accelerator.current_accelerator())
        self._device_module = torch.get_device_module(self.device)
        shape = (config.max_batch_size, config.num_key_value_heads, config.max_cache_len, config.head_dim)
        self.key_cache: List[torch.Tensor] = []
        self.value_cache: List[torch.Tensor] = []
        for _ in range(config.num_hidden_layers):
            self.key_cache.append(torch.zeros(shape, dtype=config.dtype, device="cpu", pin_memory=True))
            self.value_cache.append(torch.zeros(shape, dtype=config.dtype, device="cpu", pin_memory=True))
        # two on-device slots, layer i lives in slot i % 2
        self._device_key_cache = [torch.zeros(shape, dtype=config.dtype, device=self.device) for _ in range(2)]
        self._device_value_cache = [torch.zeros(shape, dtype=config.dtype, device=self.device) for _ in range(2)]
        self._prefetch_stream = self._device_module.Stream(device=self.device)
        self._seen_tokens = 0

    def __len__(self) -> int:
        return self.config.num_hidden_layers

    def _load_into_slot(self, layer_idx: int) -> None:
        slot = layer_idx % 2
        self._device_key_cache[slot].copy_(self.key_cache[layer_idx], non_blocking=True)
        self._device_value_cache[slot].copy_(self.value_cache[layer_idx], non_blocking=True)

    def _prefetch_layer(self, layer_idx: int) -> None:
        with self._device_module.stream(self._prefetch_stream):
            slot = layer_idx % 2
            self._device_key_cache[slot].copy_(self.key_cache[layer_idx], non_blocking=True)
            self._device_value_cache[slot].copy_(self.value_cache[layer_idx], non_blocking=True)

    def update(self, key_states: torch.Tensor, value_states: torch.Tensor, layer_idx: int,
               cache_kwargs: Optional[Dict[str, Any]] = None) -> Tuple[torch.Tensor, torch.Tensor]:
        cache_position = cache_kwargs.get("cache_position") if cache_kwargs else None
        compute_stream = self._device_module.current_stream(self.device)
        if layer_idx == 0:
            self._seen_tokens += key_states.shape[-2]
            self._load_into_slot(0)
        else:
            compute_stream.wait_stream(self._prefetch_stream)

        slot = layer_idx % 2
        k_out = self._device_key_cache[slot]
        v_out = self._device_value_cache[slot]
        k_out.index_copy_(2, cache_position, key_states)
        v_out.index_copy_(2, cache_position, value_states)
        # mirror the new positions into the host copy, ordered on the compute stream
        start = cache_kwargs.get("cache_start", 0) if cache_kwargs else 0
        num_new = key_states.shape[-2]
        self.key_cache[layer_idx].narrow(2, start, num_new).copy_(key_states, non_blocking=True)
        self.value_cache[layer_idx].narrow(2, start, num_new).copy_(value_states, non_blocking=True)

        if layer_idx + 1 < len(self):
            self._prefetch_stream.wait_stream(compute_stream)
            self._prefetch_layer(layer_idx + 1)
        return k_out, v_out

    def get_seq_length(self, layer_idx: int = 0) -> int:
        return self._seen_tokens
