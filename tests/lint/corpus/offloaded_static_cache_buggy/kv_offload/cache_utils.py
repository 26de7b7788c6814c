# coding=utf-8
# Copyright 2024 The HuggingFace Inc. team.
#
# Licensed under the Apache License, Version 2.0 (the "License");
import logging
from typing import Any, Dict, List, Optional, Tuple

import torch

from .configuration import OffloadedStaticCacheConfig
from .offload_ops import allocate_offloaded_layer, prefetch_layer_into, write_back_positions

logger = logging.getLogger(__name__)


class OffloadedStaticCache:
    """
    Static-shape KV cache that keeps layer 0 on the accelerator and every other layer on the offload
    device. Two device buffers are used in turn: while layer `i` attends, layer `i + 1` is prefetched.
    """

    is_compileable = False

    def __init__(self, config: OffloadedStaticCacheConfig):
        self.config = config
        self.device = torch.device(config.device or f"cuda:{torch.cuda.current_device()}")
        self.num_layers = config.num_hidden_layers
        shape = config.layer_shape

        self.key_cache: List[torch.Tensor] = []
        self.value_cache: List[torch.Tensor] = []
        for idx in range(self.num_layers):
            where = self.device if idx == 0 else config.offload_device
            self.key_cache.append(allocate_offloaded_layer(shape, config.dtype, where))
            self.value_cache.append(allocate_offloaded_layer(shape, config.dtype, where))

        self._device_key_cache = [torch.zeros(shape, dtype=config.dtype, device=self.device) for _ in range(2)]
        self._device_value_cache = [torch.zeros(shape, dtype=config.dtype, device=self.device) for _ in range(2)]
        self._prefetch_stream = torch.cuda.Stream(device=self.device)
        self._prefetch_done = [torch.cuda.Event() for _ in range(2)]
        self._seen_tokens = 0
        logger.debug("OffloadedStaticCache: %d layers, shape=%s", self.num_layers, shape)

    def get_seq_length(self, layer_idx: int = 0) -> int:
        return self._seen_tokens

    def get_max_cache_shape(self) -> int:
        return self.config.max_cache_len

    def _prefetch_layer(self, layer_idx: int) -> None:
        if layer_idx >= self.num_layers:
            return
        slot = layer_idx & 1
        prefetch_layer_into(
            self._device_key_cache[slot],
            self._device_value_cache[slot],
            self.key_cache[layer_idx],
            self.value_cache[layer_idx],
            self._prefetch_stream,
        )
        self._prefetch_done[slot].record(self._prefetch_stream)

    def update(
        self,
        key_states: torch.Tensor,
        value_states: torch.Tensor,
        layer_idx: int,
        cache_kwargs: Optional[Dict[str, Any]] = None,
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        start = self._seen_tokens
        compute_stream = torch.cuda.current_stream(self.device)
        if layer_idx == 0:
            k_out, v_out = self.key_cache[0], self.value_cache[0]
        else:
            slot = layer_idx & 1
            compute_stream.wait_event(self._prefetch_done[slot])
            k_out, v_out = self._device_key_cache[slot], self._device_value_cache[slot]

        length = key_states.shape[-2]
        k_out.narrow(2, start, length).copy_(key_states)
        v_out.narrow(2, start, length).copy_(value_states)

        if layer_idx > 0:
            self._prefetch_stream.wait_stream(compute_stream)
            write_back_positions(
                self.key_cache[layer_idx], self.value_cache[layer_idx], key_states, value_states, start,
                self._prefetch_stream,
            )
        self._prefetch_layer(layer_idx + 1)

        if layer_idx == self.num_layers - 1:
            self._seen_tokens += length
        return k_out, v_out

    def reset(self) -> None:
        self._prefetch_stream.synchronize()
        for idx in range(self.num_layers):
            self.key_cache[idx].zero_()
            self.value_cache[idx].zero_()
        self._seen_tokens = 0
