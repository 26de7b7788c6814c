import logging
from typing import Any, Dict, Optional, Tuple

import torch

from .buffers import allocate_device_slots, allocate_host_cache, slot_for_layer
from .cache_config import OffloadedCacheConfig
from .transfer import load_layer, write_back_layer

logger = logging.getLogger(__name__)


class OffloadedStaticCache:
    """
    Static-shaped cache whose layers live in pinned host memory. Only two layers are resident on the
    accelerator at a time: while layer `k` is used by the forward pass, layer `k + 1` is prefetched into the
    other device slot on a dedicated stream, and layer `k` is written back to the host once updated.
    """

    is_compileable = False

    def __init__(self, config: OffloadedCacheConfig) -> None:
        self.config = config
        self.device = config.device
        self.key_cache, self.value_cache = allocate_host_cache(config)
        self._device_key_cache, self._device_value_cache = allocate_device_slots(config)
        self._prefetch_stream = torch.cuda.Stream(device=self.device)
        self._loaded_events = [torch.cuda.Event() for _ in self._device_key_cache]
        self._seen_tokens = 0

    def __len__(self) -> int:
        return self.config.num_hidden_layers

    def get_seq_length(self, layer_idx: Optional[int] = 0) -> int:
        return self._seen_tokens

    def get_max_cache_shape(self) -> int:
        return self.config.max_cache_len

    def update(
        self,
        key_states: torch.Tensor,
        value_states: torch.Tensor,
        layer_idx: int,
        cache_kwargs: Optional[Dict[str, Any]] = None,
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        cache_position = cache_kwargs.get("cache_position") if cache_kwargs is not None else None
        if cache_position is None:
            cache_position = torch.arange(
                self._seen_tokens, self._seen_tokens + key_states.shape[-2], device=self.device
            )
        if layer_idx == 0:
            self._seen_tokens += key_states.shape[-2]
            self._load_first_layer()

        slot = slot_for_layer(layer_idx)
        compute_stream = torch.cuda.current_stream(self.device)
        compute_stream.wait_event(self._loaded_events[slot])

        k_out = self._device_key_cache[slot]
        v_out = self._device_value_cache[slot]
        k_out.index_copy_(2, cache_position, key_states.to(k_out.dtype))
        v_out.index_copy_(2, cache_position, value_states.to(v_out.dtype))

        self._schedule_transfers(layer_idx)
        return k_out, v_out

    def _load_first_layer(self) -> None:
        compute_stream = torch.cuda.current_stream(self.device)
        compute_stream.wait_stream(self._prefetch_stream)
        self._device_key_cache[0].copy_(self.key_cache[0], non_blocking=True)
        self._device_value_cache[0].copy_(self.value_cache[0], non_blocking=True)

    def _schedule_transfers(self, layer_idx: int) -> None:
        slot = slot_for_layer(layer_idx)
        self._prefetch_stream.wait_stream(torch.cuda.current_stream(self.device))
        with torch.cuda.stream(self._prefetch_stream):
            write_back_layer(
                self.key_cache[layer_idx],
                self.value_cache[layer_idx],
                self._device_key_cache[slot],
                self._device_value_cache[slot],
            )

        next_idx = layer_idx + 1
        if next_idx >= len(self):
            return
        next_slot = slot_for_layer(next_idx)
        load_layer(
            self._device_key_cache[next_slot],
            self._device_value_cache[next_slot],
            self.key_cache[next_idx],
            self.value_cache[next_idx],
            self._prefetch_stream,
        )
        self._loaded_events[next_slot].record(self._prefetch_stream)

    def reset(self) -> None:
        compute_stream = torch.cuda.current_stream(self.device)
        compute_stream.wait_stream(self._prefetch_stream)
        for slot in range(len(self._device_key_cache)):
            self._device_key_cache[slot].zero_()
            self._device_value_cache[slot].zero_()
        compute_stream.synchronize()
        for layer_idx in range(len(self)):
            self.key_cache[layer_idx].zero_()
            self.value_cache[layer_idx].zero_()
        self._seen_tokens = 0
