"""Hybrid static cache whose full-attention layers live in pinned host memory, in the shape of
transformers' OffloadedHybridCache. Sliding-window layers are small and stay on the device. The
full layers share two on-device buffers: while full layer i attends over one of them, the next
full layer is prefetched into the other on a side stream."""

from typing import List, Tuple

import torch

from hybrid_offload.config import HybridCacheConfig


class OffloadedHybridCache:
    def __init__(self, config: HybridCacheConfig, device: str = "cuda"):
        self.config = config
        self.device = torch.device(device)
        self.offload_device = torch.device(config.offload_device)
        self.is_sliding: List[bool] = [t == "sliding_attention" for t in config.layer_types]
        self.max_cache_len = config.max_cache_len
        self.sliding_window = min(config.sliding_window, config.max_cache_len)

        self.key_cache: List[torch.Tensor] = []
        self.value_cache: List[torch.Tensor] = []
        for sliding in self.is_sliding:
            k, v = self._allocate_layer(sliding)
            self.key_cache.append(k)
            self.value_cache.append(v)

        # two on-device copies of a full layer, used in turn
        full_shape = self._shape(self.max_cache_len)
        self.device_key_cache = [torch.zeros(full_shape, dtype=config.dtype, device=self.device) for _ in range(2)]
        self.device_value_cache = [torch.zeros(full_shape, dtype=config.dtype, device=self.device) for _ in range(2)]
        self.active_device_layer = 0
        self._prefetch_stream = torch.cuda.Stream(device=self.device) if self.device.type == "cuda" else None

    def _shape(self, length: int) -> Tuple[int, int, int, int]:
        c = self.config
        return (c.max_batch_size, c.num_key_value_heads, length, c.head_dim)

    def _allocate_layer(self, sliding: bool) -> Tuple[torch.Tensor, torch.Tensor]:
        if sliding:
            shape = self._shape(self.sliding_window)
            device, pin_memory = self.device, False
        else:
            shape = self._shape(self.max_cache_len)
            device, pin_memory = self.offload_device, True
        k = torch.zeros(shape, dtype=self.config.dtype, device=device, pin_memory=pin_memory)
        v = torch.zeros(shape, dtype=self.config.dtype, device=device, pin_memory=pin_memory)
        return k, v

    def update(
        self, key_states: torch.Tensor, value_states: torch.Tensor, layer_idx: int, cache_position: torch.Tensor
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        if self.is_sliding[layer_idx]:
            return self._sliding_update(key_states, value_states, layer_idx, cache_position)

        k_out = self.device_key_cache[self.active_device_layer]
        v_out = self.device_value_cache[self.active_device_layer]
        # the buffer of this layer was filled by an earlier prefetch
        if self._prefetch_stream is not None:
            torch.cuda.current_stream(self.device).wait_stream(self._prefetch_stream)
        self._prefetch_next_layer(layer_idx)

        k_out.index_copy_(2, cache_position, key_states)
        v_out.index_copy_(2, cache_position, value_states)
        # keep the offloaded copy up to date (blocking copy on the compute stream)
        self.key_cache[layer_idx][:, :, cache_position.cpu()] = key_states.to(self.offload_device)
        self.value_cache[layer_idx][:, :, cache_position.cpu()] = value_states.to(self.offload_device)
        return k_out, v_out

    def _sliding_update(self, key_states, value_states, layer_idx, cache_position):
        k_cache, v_cache = self.key_cache[layer_idx], self.value_cache[layer_idx]
        if cache_position.shape[0] >= self.sliding_window:
            k_cache.copy_(key_states[:, :, -self.sliding_window :])
            v_cache.copy_(value_states[:, :, -self.sliding_window :])
            return key_states, value_states
        slot = cache_position.remainder(self.sliding_window)
        k_cache.index_copy_(2, slot, key_states)
        v_cache.index_copy_(2, slot, value_states)
        return k_cache, v_cache

    def _prefetch_next_layer(self, layer_idx: int) -> None:
        """Switch to the other device buffer and fill it with the next full layer."""
        self.active_device_layer = 1 - self.active_device_layer
        try:
            next_layer = layer_idx + 1 + self.is_sliding[layer_idx + 1 :].index(False)
        except ValueError:
            # last full layer: wrap around to the first one for the next forward
            next_layer = self.is_sliding.index(False)
        if self._prefetch_stream is not None:
            with torch.cuda.stream(self._prefetch_stream):
                self._prefetch_layer_in_context(next_layer)
        else:
            self._prefetch_layer_in_context(next_layer)

    def _prefetch_layer_in_context(self, layer_idx: int) -> None:
        # expect: KVG004
        self.device_key_cache[self.active_device_layer].copy_(self.key_cache[layer_idx], non_blocking=True)
        # expect: KVG004
        self.device_value_cache[self.active_device_layer].copy_(self.value_cache[layer_idx], non_blocking=True)

    def get_seq_length(self) -> int:
        # a position is in use when any head of the first full layer is non-zero there
        first_full = self.is_sliding.index(False)
        return int(self.key_cache[first_full][0, 0].any(dim=-1).sum())
