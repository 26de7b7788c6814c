# coding=utf-8
# Copyright 2024 The HuggingFace Inc. team.
# Licensed under the Apache License, Version 2.0
import logging
from typing import List, Tuple

import torch

from .configuration import OffloadedCacheConfig
from .streams import device_module_for, new_event, new_side_stream

logger = logging.getLogger(__name__)


class OffloadedPrefixCache:
    """
    Holds the key/value states of a long shared prefix in pinned host memory. Only `num_device_slots` layers live
    on the accelerator at any time: while layer `i` attends over its slot, layer `i + 1` is prefetched into the
    next slot on a dedicated prefetch stream.
    """

    def __init__(self, config: OffloadedCacheConfig):
        self.config = config
        self.device = config.device
        self.num_layers = config.num_hidden_layers
        self.num_slots = config.num_device_slots
        self._device_mod = device_module_for(self.device)
        self._prefetch_stream = new_side_stream(self.device)
        self._slot_released = [new_event(self.device) for _ in range(self.num_slots)]
        self._host_keys: List[torch.Tensor] = []
        self._host_values: List[torch.Tensor] = []
        self._device_keys: List[torch.Tensor] = []
        self._device_values: List[torch.Tensor] = []

    def load_prefix(self, past_key_values: List[Tuple[torch.Tensor, torch.Tensor]]) -> None:
        if len(past_key_values) != self.num_layers:
            raise ValueError(f"Expected {self.num_layers} layers, got {len(past_key_values)}")
        pin = self.config.pin_memory
        for key, value in past_key_values:
            self._host_keys.append(key.to(self.config.offload_device).pin_memory() if pin else key.cpu())
            self._host_values.append(value.to(self.config.offload_device).pin_memory() if pin else value.cpu())
        shape, dtype = self._host_keys[0].shape, self._host_keys[0].dtype
        for _ in range(self.num_slots):
            self._device_keys.append(torch.empty(shape, dtype=dtype, device=self.device))
            self._device_values.append(torch.empty(shape, dtype=dtype, device=self.device))
        logger.info("Offloaded %d prefix layers of shape %s", self.num_layers, tuple(shape))

    def begin_forward(self) -> None:
        self._prefetch_layer(0)

    def _prefetch_layer(self, layer_idx: int) -> None:
        slot = layer_idx % self.num_slots
        with self._device_mod.stream(self._prefetch_stream):
            self._prefetch_stream.wait_event(self._slot_released[slot])
            # expect: KVG004
            self._device_keys[slot].copy_(self._host_keys[layer_idx], non_blocking=True)
            # expect: KVG004
            self._device_values[slot].copy_(self._host_values[layer_idx], non_blocking=True)

    def mark_layer_released(self, layer_idx: int) -> None:
        slot = layer_idx % self.num_slots
        self._slot_released[slot].record(self._device_mod.current_stream(self.device))

    def get_layer(self, layer_idx: int) -> Tuple[torch.Tensor, torch.Tensor]:
        self._device_mod.current_stream(self.device).wait_stream(self._prefetch_stream)
        slot = layer_idx % self.num_slots
        if layer_idx + 1 < self.num_layers:
            self._prefetch_layer(layer_idx + 1)
        return self._device_keys[slot], self._device_values[slot]

    def attend_with_prefix(self, layer_idx: int, key_states: torch.Tensor,
                           value_states: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        prefix_keys, prefix_values = self.get_layer(layer_idx)
        return torch.cat([prefix_keys, key_states], dim=-2), torch.cat([prefix_values, value_states], dim=-2)

    def get_seq_length(self) -> int:
        return 0 if not self._host_keys else self._host_keys[0].shape[-2]
