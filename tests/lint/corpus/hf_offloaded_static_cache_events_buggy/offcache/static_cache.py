"""An offloaded static KV cache: the whole cache lives in pinned host memory, and only two
layers at a time occupy device memory (layer i in slot i & 1). While layer i is attended, layer
i + 1 is prefetched on a prefetch stream and layer i is written back on an eviction stream."""

import torch


class OffloadedStaticCache:
    def __init__(self, num_layers, batch, heads, max_len, head_dim, device="cuda", dtype=torch.float16):
        self.num_layers = num_layers
        self.device = torch.device(device)
        shape = (batch, heads, max_len, head_dim)
        self.key_cache = [torch.zeros(shape, dtype=dtype, pin_memory=True) for _ in range(num_layers)]
        self.value_cache = [torch.zeros(shape, dtype=dtype, pin_memory=True) for _ in range(num_layers)]
        self._device_key_cache = [torch.zeros(shape, dtype=dtype, device=self.device) for _ in range(2)]
        self._device_value_cache = [torch.zeros(shape, dtype=dtype, device=self.device) for _ in range(2)]
        self._prefetch_stream = torch.cuda.Stream(device=self.device)
        self._evict_stream = torch.cuda.Stream(device=self.device)
        # one event per layer: recorded when that layer's write-back to host has been queued
        self._evicted = [torch.cuda.Event() for _ in range(num_layers)]

    def __len__(self):
        return self.num_layers

    def _prefetch_layer(self, layer_idx):
        if layer_idx >= self.num_layers:
            return
        slot = layer_idx & 1
        # the host copy of this layer and the slot's previous tenant must be written back first
        self._prefetch_stream.wait_event(self._evicted[layer_idx])
        self._prefetch_stream.wait_event(self._evicted[(layer_idx - 2) % self.num_layers])
        with torch.cuda.stream(self._prefetch_stream):
            # expect: KVG004
            self._device_key_cache[slot].copy_(self.key_cache[layer_idx], non_blocking=True)
            # expect: KVG004
            self._device_value_cache[slot].copy_(self.value_cache[layer_idx], non_blocking=True)

    def _evict_layer(self, layer_idx):
        slot = layer_idx & 1
        with torch.cuda.stream(self._evict_stream):
            # expect: KVG001
            self.key_cache[layer_idx].copy_(self._device_key_cache[slot], non_blocking=True)
            # expect: KVG001
            self.value_cache[layer_idx].copy_(self._device_value_cache[slot], non_blocking=True)
            self._evicted[layer_idx].record()

    def update(self, key_states, value_states, layer_idx, cache_position):
        if layer_idx == 0:
            self._prefetch_layer(0)
        # the prefetch of this layer must have landed before we touch it
        torch.cuda.current_stream(self.device).wait_stream(self._prefetch_stream)
        slot = layer_idx & 1
        k_out = self._device_key_cache[slot]
        v_out = self._device_value_cache[slot]
        k_out.index_copy_(2, cache_position, key_states)
        v_out.index_copy_(2, cache_position, value_states)
        self._evict_layer(layer_idx)
        self._prefetch_layer(layer_idx + 1)
        return k_out, v_out

    def save(self, path):
        # expect: KVG003
        torch.save({"key": self.key_cache, "value": self.value_cache}, path)
