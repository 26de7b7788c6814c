# Copyright 2024 The HuggingFace Team. All rights reserved.

from typing import Any, Dict, List, Optional, Tuple

import torch

from .import_utils import get_device_module, get_logger, is_torch_accelerator_available

logger = get_logger(__name__)


class Cache:
    """Base, abstract class for all caches."""

    is_compileable = False

    def update(self, key_states, value_states, layer_idx, cache_kwargs=None):
        raise NotImplementedError

    def get_seq_length(self, layer_idx: int = 0) -> int:
        raise NotImplementedError


class DynamicCache(Cache):
    """A cache that grows dynamically as more tokens are generated."""

    def __init__(self) -> None:
        super().__init__()
        self._seen_tokens = 0
        self.key_cache: List[torch.Tensor] = []
        self.value_cache: List[torch.Tensor] = []

    def __len__(self) -> int:
        return len(self.key_cache)

    def get_seq_length(self, layer_idx: int = 0) -> int:
        if len(self.key_cache) <= layer_idx:
            return 0
        return self.key_cache[layer_idx].shape[-2]


class OffloadedCache(DynamicCache):
    """
    A drop-in replacement for DynamicCache that keeps only the current and the next layer on the accelerator.
    Layers that are not in use are moved to host memory on a dedicated offload stream, and the next layer is
    prefetched on a dedicated prefetch stream while the current layer is computed.
    """

    def __init__(self, device: Optional[torch.device] = None) -> None:
        if not is_torch_accelerator_available():
            raise RuntimeError("OffloadedCache can only be used with an accelerator")
        super().__init__()
        self.device = device if device is not None else torch.accelerator.current_accelerator()
        self.device_module = get_device_module(self.device)
        self.original_device: List[torch.device] = []
        self.prefetch_stream = torch.Stream(device=self.device)
        self.offload_stream = torch.Stream(device=self.device)

    def prefetch_layer(self, layer_idx: int) -> None:
        if layer_idx < len(self):
            self.prefetch_stream.wait_stream(self.offload_stream)
            with self.prefetch_stream:
                device = self.original_device[layer_idx]
                for cache in (self.key_cache, self.value_cache):
                    cache[layer_idx] = cache[layer_idx].to(device, non_blocking=True)

    def evict_previous_layer(self, layer_idx: int) -> None:
        if len(self) > 2:
            prev_layer_idx = (layer_idx - 1) % len(self)
            with self.offload_stream:
                for cache in (self.key_cache, self.value_cache):
                    device_tensor = cache[prev_layer_idx]
                    # expect: KVG001
                    cache[prev_layer_idx] = device_tensor.to("cpu", non_blocking=True)
                    device_tensor.record_stream(self.offload_stream)

    def __getitem__(self, layer_idx: int) -> Tuple[torch.Tensor, torch.Tensor]:
        if layer_idx >= len(self):
            raise KeyError(f"Cache only has {len(self)} layers, attempted to access layer with index {layer_idx}")
        self.device_module.current_stream().synchronize()
        self.evict_previous_layer(layer_idx)
        self.prefetch_stream.synchronize()
        key_tensor = self.key_cache[layer_idx]
        value_tensor = self.value_cache[layer_idx]
        self.prefetch_layer((layer_idx + 1) % len(self))
        return key_tensor, value_tensor

    def reorder_cache(self, beam_idx: torch.LongTensor) -> None:
        """Reorders host-resident layers on the host and accelerator-resident layers on the accelerator."""
        self.device_module.current_stream().wait_stream(self.prefetch_stream)
        host_beam_idx = beam_idx.to("cpu")
        for cache in (self.key_cache, self.value_cache):
            for layer_idx in range(len(cache)):
                if cache[layer_idx].device.type == "cpu":
                    # expect: KVG003
                    cache[layer_idx] = cache[layer_idx].index_select(0, host_beam_idx)
                else:
                    cache[layer_idx] = cache[layer_idx].index_select(0, beam_idx)

    def update(self, key_states: torch.Tensor, value_states: torch.Tensor, layer_idx: int,
               cache_kwargs: Optional[Dict[str, Any]] = None) -> Tuple[torch.Tensor, torch.Tensor]:
        if layer_idx == 0:
            self._seen_tokens += key_states.shape[-2]
        if len(self.key_cache) < layer_idx:
            raise ValueError("OffloadedCache does not support model usage where layers are skipped.")
        elif len(self.key_cache) == layer_idx:
            self.key_cache.append(key_states)
            self.value_cache.append(value_states)
            self.original_device.append(key_states.device)
            self.evict_previous_layer(layer_idx)
        else:
            key_tensor, value_tensor = self[layer_idx]
            self.key_cache[layer_idx] = torch.cat([key_tensor, key_states], dim=-2)
            self.value_cache[layer_idx] = torch.cat([value_tensor, value_states], dim=-2)
        return self.key_cache[layer_idx], self.value_cache[layer_idx]
