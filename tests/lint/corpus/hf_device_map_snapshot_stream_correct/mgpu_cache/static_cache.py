"""A static KV cache whose layers live on different devices."""

import torch


class StaticCache:
    def __init__(self, num_layers, batch, heads, max_len, head_dim, dtype, layer_device_map):
        self.layer_device_map = [torch.device(layer_device_map[i]) for i in range(num_layers)]
        shape = (batch, heads, max_len, head_dim)
        self.key_cache = []
        self.value_cache = []
        for i in range(num_layers):
            device = self.layer_device_map[i]
            self.key_cache.append(torch.zeros(shape, dtype=dtype, device=device))
            self.value_cache.append(torch.zeros(shape, dtype=dtype, device=device))

    def update(self, key_states, value_states, layer_idx, cache_position):
        k_out = self.key_cache[layer_idx]
        v_out = self.value_cache[layer_idx]
        k_out.index_copy_(2, cache_position, key_states)
        v_out.index_copy_(2, cache_position, value_states)
        return k_out, v_out

    def __len__(self):
        return len(self.key_cache)
