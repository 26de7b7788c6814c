from __future__ import annotations

from typing import Any, Optional

import torch

from .configuration_offload import OffloadConfig
from .layer_events import LayerEventTable


class OffloadedStaticCache:
    """
    Static KV cache that keeps every layer in pinned CPU memory and streams the
    layers through a small ring of device slots during the forward pass.

    While layer ``i`` computes, layer ``i + 1`` is prefetched from the host into
    the next device slot and layer ``i - 1`` (which now holds the newly
    appended token) is written back to the host.
    """

    is_compileable = False

    def __init__(self, config: OffloadConfig, device: torch.device | str = "cuda") -> None:
        if not torch.cuda.is_available():
            raise RuntimeError("OffloadedStaticCache can only be used with a CUDA device")
        self.config = config
        self.device = torch.device(device)
        self.num_layers = config.num_hidden_layers

        self._host_kv = [
            torch.zeros(config.layer_shape, dtype=config.dtype, pin_memory=True) for _ in range(self.num_layers)
        ]
        self._device_kv = [
            torch.zeros(config.layer_shape, dtype=config.dtype, device=self.device)
            for _ in range(config.num_device_slots)
        ]
        self.prefetch_stream = torch.cuda.Stream(device=self.device)
        self._events = LayerEventTable(self.num_layers)
        self._seen_tokens = 0

    def __len__(self) -> int:
        return self.num_layers

    def _slot(self, layer_idx: int) -> int:
        return layer_idx % self.config.num_device_slots

    def get_seq_length(self, layer_idx: Optional[int] = 0) -> int:
        return self._seen_tokens

    def get_max_cache_shape(self) -> int:
        return self.config.max_cache_len

    def prefetch_layer(self, layer_idx: int) -> None:
        """Start moving ``layer_idx`` from the host into its device slot."""
        slot = self._slot(layer_idx)
        with torch.cuda.stream(self.prefetch_stream):
            # expect: KVG004
            self._device_kv[slot].copy_(self._host_kv[layer_idx], non_blocking=True)
            self._events.mark_prefetched(layer_idx, self.prefetch_stream)

    def evict_layer(self, layer_idx: int) -> None:
        """Write ``layer_idx`` back to its pinned host copy."""
        slot = self._slot(layer_idx)
        with torch.cuda.stream(self.prefetch_stream):
            # expect: KVG001
            self._host_kv[layer_idx].copy_(self._device_kv[slot], non_blocking=True)

    def update(
        self,
        key_states: torch.Tensor,
        value_states: torch.Tensor,
        layer_idx: int,
        cache_kwargs: Optional[dict[str, Any]] = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        compute_stream = torch.cuda.current_stream(self.device)
        if not cache_kwargs or cache_kwargs.get("cache_position") is None:
            raise ValueError("OffloadedStaticCache.update() requires `cache_position` in cache_kwargs")
        cache_position = cache_kwargs["cache_position"]

        prev_layer_idx = (layer_idx - 1) % self.num_layers
        self._events.wait_computed(prev_layer_idx, self.prefetch_stream)
        if layer_idx == 0:
            if self._seen_tokens > 0:
                self.evict_layer(prev_layer_idx)
            self.prefetch_layer(0)
            self._seen_tokens += key_states.shape[-2]
        else:
            self.evict_layer(prev_layer_idx)
        if layer_idx + 1 < self.num_layers:
            self.prefetch_layer(layer_idx + 1)

        self._events.wait_prefetched(layer_idx, compute_stream)
        self._events.mark_computed(layer_idx, compute_stream)

        kv = self._device_kv[self._slot(layer_idx)]
        kv[0].index_copy_(2, cache_position, key_states)
        kv[1].index_copy_(2, cache_position, value_states)
        return kv[0], kv[1]

    def reset(self) -> None:
        torch.cuda.synchronize(self.device)
        for host in self._host_kv:
            host.zero_()
        self._seen_tokens = 0
