from typing import Any, Optional

import torch

from .cache_base import Cache, device_module_for


class OffloadedCache(Cache):
    """Dynamic cache keeping only the current and next layer on the accelerator.

    While layer ``i`` runs, layer ``i + 1`` is prefetched and layer ``i - 1`` is
    evicted to host memory, both on a side stream.
    """

    def __init__(self, device="cuda") -> None:
        super().__init__()
        self.original_device: list[torch.device] = []
        self.device_module = device_module_for(device)
        self.prefetch_stream = self.device_module.Stream()
        self._prefetched: dict[int, Any] = {}
        self._written: dict[int, Any] = {}

    def prefetch_layer(self, layer_idx: int) -> None:
        device = self.original_device[layer_idx]
        with self.device_module.stream(self.prefetch_stream):
            self.key_cache[layer_idx] = self.key_cache[layer_idx].to(device, non_blocking=True)
            self.value_cache[layer_idx] = self.value_cache[layer_idx].to(device, non_blocking=True)
            event = self.device_module.Event()
            event.record(self.prefetch_stream)
        self._prefetched[layer_idx] = event

    def evict_previous_layer(self, layer_idx: int) -> None:
        if len(self) <= 2:
            return
        prev_layer_idx = (layer_idx - 1) % len(self)
        # the layer was appended / concatenated on the compute stream
        self.prefetch_stream.wait_event(self._written.pop(prev_layer_idx))
        with self.device_module.stream(self.prefetch_stream):
            for cache in (self.key_cache, self.value_cache):
                on_device = cache[prev_layer_idx]
                cache[prev_layer_idx] = on_device.to("cpu", non_blocking=True)
                on_device.record_stream(self.prefetch_stream)

    def _mark_written(self, layer_idx: int) -> None:
        event = self.device_module.Event()
        event.record(self.device_module.current_stream())
        self._written[layer_idx] = event

    def _ensure_on_device(self, layer_idx: int) -> None:
        prefetched = self._prefetched.pop(layer_idx, None)
        if prefetched is not None:
            self.device_module.current_stream().wait_event(prefetched)
            return
        # not prefetched (first decoding step): load on the compute stream once evictions drained
        self.device_module.current_stream().wait_stream(self.prefetch_stream)
        device = self.original_device[layer_idx]
        self.key_cache[layer_idx] = self.key_cache[layer_idx].to(device, non_blocking=True)
        self.value_cache[layer_idx] = self.value_cache[layer_idx].to(device, non_blocking=True)

    def update(
        self,
        key_states: torch.Tensor,
        value_states: torch.Tensor,
        layer_idx: int,
        cache_kwargs: Optional[dict[str, Any]] = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        if len(self.key_cache) < layer_idx:
            raise ValueError("OffloadedCache does not support model usage where layers are skipped.")
        if len(self.key_cache) == layer_idx:
            # prefill: first time we see this layer
            self.key_cache.append(key_states)
            self.value_cache.append(value_states)
            self.original_device.append(key_states.device)
            self._mark_written(layer_idx)
            self.evict_previous_layer(layer_idx)
            return key_states, value_states

        self._ensure_on_device(layer_idx)
        self.key_cache[layer_idx] = torch.cat([self.key_cache[layer_idx], key_states], dim=-2)
        self.value_cache[layer_idx] = torch.cat([self.value_cache[layer_idx], value_states], dim=-2)
        key_tensor, value_tensor = self.key_cache[layer_idx], self.value_cache[layer_idx]
        self._mark_written(layer_idx)

        self.evict_previous_layer(layer_idx)
        self.prefetch_layer((layer_idx + 1) % len(self))
        return key_tensor, value_tensor
