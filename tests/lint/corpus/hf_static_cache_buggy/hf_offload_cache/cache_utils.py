# Copyright 2024 The HuggingFace Team. All rights reserved.
import logging
from typing import Any, Dict, List, Optional, Tuple

import torch

from .configuration import NUM_DEVICE_LAYER_BUFFERS, OffloadedStaticCacheConfig
from .offload_utils import alloc_layer, copy_layer_to_device, make_side_stream, write_back_tokens

logger = logging.getLogger(__name__)


class OffloadedStaticCache:
    """Static cache keeping layer 0 and two rotating layer buffers on the accelerator.

    All other layers live in pinned host memory; layer ``i + 1`` is prefetched while
    layer ``i`` runs attention.
    """

    is_compileable = False

    def __init__(self, config: OffloadedStaticCacheConfig):
        self.config = config
        self.device = torch.device(config.device or "cuda")
        self.num_layers = config.num_hidden_layers
        shape, dtype = config.layer_shape, config.dtype
        pin = config.offload_device == "cpu"
        self.key_cache: List[torch.Tensor] = []
        self.value_cache: List[torch.Tensor] = []
        for layer_idx in range(self.num_layers):
            device = self.device if layer_idx == 0 else config.offload_device
            self.key_cache.append(alloc_layer(shape, dtype, device, pin and layer_idx > 0))
            self.value_cache.append(alloc_layer(shape, dtype, device, pin and layer_idx > 0))
        self._device_key_cache = [alloc_layer(shape, dtype, self.device, False)
                                  for _ in range(NUM_DEVICE_LAYER_BUFFERS)]
        self._device_value_cache = [alloc_layer(shape, dtype, self.device, False)
                                    for _ in range(NUM_DEVICE_LAYER_BUFFERS)]
        self._prefetch_stream = make_side_stream(self.device)
        self._offload_stream = make_side_stream(self.device)
        self._seen_tokens = 0

    def __len__(self) -> int:
        return self.num_layers

    def get_seq_length(self, layer_idx: Optional[int] = 0) -> int:
        return self._seen_tokens

    def _prefetch_layer(self, layer_idx: int) -> None:
        if layer_idx >= self.num_layers:
            return
        slot = layer_idx % NUM_DEVICE_LAYER_BUFFERS
        with self._prefetch_stream:
            copy_layer_to_device(self.key_cache[layer_idx], self.value_cache[layer_idx],
                                 self._device_key_cache[slot], self._device_value_cache[slot])

    def update(
        self,
        key_states: torch.Tensor,
        value_states: torch.Tensor,
        layer_idx: int,
        cache_kwargs: Optional[Dict[str, Any]] = None,
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        cache_position = cache_kwargs.get("cache_position") if cache_kwargs else None
        compute_stream = torch.cuda.current_stream(self.device)
        if layer_idx == 0:
            self._seen_tokens += key_states.shape[-2]
            self._prefetch_stream.wait_stream(self._offload_stream)
            self._prefetch_stream.wait_stream(compute_stream)
            k_out, v_out = self.key_cache[0], self.value_cache[0]
        else:
            compute_stream.wait_stream(self._prefetch_stream)
            slot = layer_idx % NUM_DEVICE_LAYER_BUFFERS
            k_out, v_out = self._device_key_cache[slot], self._device_value_cache[slot]

        self._prefetch_layer(layer_idx + 1)

        if cache_position is None:
            k_out.copy_(key_states)
            v_out.copy_(value_states)
        else:
            k_out.index_copy_(2, cache_position, key_states)
            v_out.index_copy_(2, cache_position, value_states)

        if layer_idx > 0:
            start = self._seen_tokens - key_states.shape[-2]
            self._offload_stream.wait_stream(compute_stream)
            with self._offload_stream:
                write_back_tokens(self.key_cache[layer_idx], self.value_cache[layer_idx],
                                  key_states, value_states, start)
            key_states.record_stream(self._offload_stream)
            value_states.record_stream(self._offload_stream)
        return k_out, v_out

    def reset(self) -> None:
        self._offload_stream.synchronize()
        self._prefetch_stream.synchronize()
        for layer_idx in range(self.num_layers):
            self.key_cache[layer_idx].zero_()
            self.value_cache[layer_idx].zero_()
        self._seen_tokens = 0
