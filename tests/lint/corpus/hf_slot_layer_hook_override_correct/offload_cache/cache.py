"""The cache object the model sees: update() is called by each attention layer in order."""

import torch

from offload_cache.layers import DeviceSlot, SlidingSlotLayer, StaticSlotLayer


class OffloadedHybridCache:
    def __init__(self, layer_types, batch, heads, head_dim, max_cache_len, sliding_window,
                 dtype=torch.float16, device="cuda"):
        shape = (batch, heads, max_cache_len, head_dim)
        self.device_slots = [DeviceSlot(shape, dtype, device) for _ in range(2)]
        self._streams = {"prefetch": torch.cuda.Stream(device), "offload": torch.cuda.Stream(device)}
        self.layers = [
            SlidingSlotLayer(self, i, shape, dtype, sliding_window) if kind == "sliding_attention"
            else StaticSlotLayer(self, i, shape, dtype)
            for i, kind in enumerate(layer_types)
        ]

    @property
    def prefetch_stream(self):
        return self._streams["prefetch"]

    @property
    def offload_stream(self):
        return self._streams["offload"]

    def update(self, key_states, value_states, layer_idx, cache_kwargs):
        layer = self.layers[layer_idx]
        if layer_idx == 0:
            layer.prefetch()
        # this layer's prefetch (issued while the previous layer ran) must have landed
        torch.cuda.current_stream().wait_stream(self.prefetch_stream)
        k, v = layer.update(key_states, value_states, cache_kwargs["cache_position"])
        layer.write_back()
        if layer_idx + 1 < len(self.layers):
            self.layers[layer_idx + 1].prefetch()
        return k, v
