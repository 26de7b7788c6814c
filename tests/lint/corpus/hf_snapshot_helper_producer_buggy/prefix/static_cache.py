"""A static KV cache in the shape of transformers' StaticCache: fixed-size key/value tensors per
layer on the device, new tokens written with ``index_copy_`` at their cache positions. Tokens of
the last step can be left pending and written later by ``flush_pending``; per-layer int8 scales
are recomputed by ``refresh_scales``, which writes them with ``torch.amax(..., out=)``. Both
helpers run on whatever stream is current. Bug: see prefix/snapshot.py."""

import torch


class QuantStaticCache:
    def __init__(self, num_layers, batch, heads, max_len, head_dim, device):
        self.num_layers = num_layers
        shape = (batch, heads, max_len, head_dim)
        self.key_cache = [torch.zeros(shape, dtype=torch.int8, device=device) for _ in range(num_layers)]
        self.value_cache = [torch.zeros(shape, dtype=torch.int8, device=device) for _ in range(num_layers)]
        self.scales = torch.ones((num_layers, 2, heads), dtype=torch.float32, device=device)
        self.pending = []

    def update(self, layer_idx, key_states, value_states, cache_position):
        self.pending.append((layer_idx, key_states, value_states, cache_position))

    def flush_pending(self):
        for layer_idx, key_states, value_states, cache_position in self.pending:
            k_scale = self.scales[layer_idx, 0].view(1, -1, 1, 1)
            v_scale = self.scales[layer_idx, 1].view(1, -1, 1, 1)
            self.key_cache[layer_idx].index_copy_(2, cache_position, (key_states / k_scale).round().to(torch.int8))
            self.value_cache[layer_idx].index_copy_(2, cache_position, (value_states / v_scale).round().to(torch.int8))
        self.pending.clear()


def refresh_scales(cache, recent_keys, recent_values):
    for layer_idx in range(cache.num_layers):
        torch.amax(recent_keys[layer_idx].abs(), dim=(0, 2, 3), out=cache.scales[layer_idx, 0])
        torch.amax(recent_values[layer_idx].abs(), dim=(0, 2, 3), out=cache.scales[layer_idx, 1])
    cache.scales.div_(127.0)
