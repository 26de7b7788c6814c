"""A dynamic KV cache that parks every inactive layer in pinned host memory.

Compute runs on the current (default) stream.  While layer ``i`` is being
computed, layer ``i - 1`` is evicted to the host on the offload stream and
layer ``i + 1`` is brought back on the prefetch stream.
"""
from typing import Dict, List, Tuple

import torch

from .config import KEEP_ON_DEVICE_LAYERS, OFFLOAD_DEVICE, PIN_HOST_MEMORY
from .stream_utils import StreamSet, join_into_compute, order_after_compute


class OffloadedDynamicCache:
    def __init__(self, device: str = "cuda:0"):
        self.device = torch.device(device)
        self.streams = StreamSet(self.device)
        self.key_cache: List[torch.Tensor] = []
        self.value_cache: List[torch.Tensor] = []
        self._host_keys: Dict[int, torch.Tensor] = {}
        self._host_values: Dict[int, torch.Tensor] = {}
        self._evicted: Dict[int, torch.cuda.Event] = {}

    def __len__(self) -> int:
        return len(self.key_cache)

    def get_seq_length(self, layer_idx: int = 0) -> int:
        if len(self) <= layer_idx:
            return 0
        return self.key_cache[layer_idx].shape[-2]

    def _host_buffer(self, store: Dict[int, torch.Tensor], layer_idx: int, like: torch.Tensor) -> torch.Tensor:
        buf = store.get(layer_idx)
        if buf is None or buf.shape != like.shape:
            buf = torch.empty(like.shape, dtype=like.dtype, device=OFFLOAD_DEVICE, pin_memory=PIN_HOST_MEMORY)
            store[layer_idx] = buf
        return buf

    def _evict_layer(self, layer_idx: int) -> None:
        if layer_idx < KEEP_ON_DEVICE_LAYERS or not self.key_cache[layer_idx].is_cuda:
            return
        key, value = self.key_cache[layer_idx], self.value_cache[layer_idx]
        host_k = self._host_buffer(self._host_keys, layer_idx, key)
        host_v = self._host_buffer(self._host_values, layer_idx, value)
        offload = self.streams.offload
        order_after_compute(offload)
        with torch.cuda.stream(offload):
            host_k.copy_(key, non_blocking=True)
            host_v.copy_(value, non_blocking=True)
            done = torch.cuda.Event()
            done.record()
        # keep the device storage alive until the offload stream is done with it
        key.record_stream(offload)
        value.record_stream(offload)
        self._evicted[layer_idx] = done
        self.key_cache[layer_idx] = host_k
        self.value_cache[layer_idx] = host_v

    def _prefetch_layer(self, layer_idx: int) -> None:
        if self.key_cache[layer_idx].is_cuda:
            return
        prefetch = self.streams.prefetch
        with torch.cuda.stream(prefetch):
            evicted = self._evicted.pop(layer_idx, None)
            if evicted is not None:
                prefetch.wait_event(evicted)
            # fresh device tensors: nothing on the compute stream has seen them yet
            self.key_cache[layer_idx] = self.key_cache[layer_idx].to(self.device, non_blocking=True)
            self.value_cache[layer_idx] = self.value_cache[layer_idx].to(self.device, non_blocking=True)

    def update(
        self, key_states: torch.Tensor, value_states: torch.Tensor, layer_idx: int
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        prefill = len(self) <= layer_idx
        if prefill:
            self.key_cache.append(key_states)
            self.value_cache.append(value_states)
            if layer_idx > 0:
                self._evict_layer(layer_idx - 1)
            return key_states, value_states

        join_into_compute(self.streams.prefetch)
        self.key_cache[layer_idx] = torch.cat([self.key_cache[layer_idx], key_states], dim=-2)
        self.value_cache[layer_idx] = torch.cat([self.value_cache[layer_idx], value_states], dim=-2)
        self._evict_layer((layer_idx - 1) % len(self))
        self._prefetch_layer((layer_idx + 1) % len(self))
        return self.key_cache[layer_idx], self.value_cache[layer_idx]
