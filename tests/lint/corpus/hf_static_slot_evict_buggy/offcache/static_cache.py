"""An offloaded static KV cache, in the shape of transformers' OffloadedStaticCache.

Every layer's keys and values live in pinned host memory. Two device slots hold the layer being
attended (layer i uses slot i % 2) and the next one, which is prefetched on a side stream while
layer i runs. When layer i starts, layer i - 1 is evicted from its slot back to the host on the
compute stream (so it is queued after the attention that used it), and layer i + 1 is prefetched
into that same slot.
"""

import torch

from .config import CacheConfig
from .transfer import transfer_scope


class OffloadedStaticCache:
    def __init__(self, config: CacheConfig, device="cuda"):
        self.config = config
        self.num_layers = config.num_hidden_layers
        self.device = torch.device(device)
        shape = (config.max_batch_size, config.num_key_value_heads, config.max_cache_len, config.head_dim)
        self.key_cache = [torch.zeros(shape, dtype=config.dtype, pin_memory=True) for _ in range(self.num_layers)]
        self.value_cache = [torch.zeros(shape, dtype=config.dtype, pin_memory=True) for _ in range(self.num_layers)]
        self._device_key_cache = [torch.zeros(shape, dtype=config.dtype, device=self.device) for _ in range(2)]
        self._device_value_cache = [torch.zeros(shape, dtype=config.dtype, device=self.device) for _ in range(2)]
        self._prefetch_stream = torch.cuda.Stream(device=self.device)
        self._slot_ready = [None, None]
        self._seen_tokens = 0

    def __len__(self):
        return self.num_layers

    def get_seq_length(self, layer_idx=0):
        return self._seen_tokens

    def _prefetch_layer(self, layer_idx):
        """Start copying layer ``layer_idx`` from the host into its device slot."""
        if layer_idx >= self.num_layers:
            return
        slot = layer_idx % 2
        with transfer_scope(self._prefetch_stream) as done:
            # expect: KVG004
            self._device_key_cache[slot].copy_(self.key_cache[layer_idx], non_blocking=True)
            # expect: KVG004
            self._device_value_cache[slot].copy_(self.value_cache[layer_idx], non_blocking=True)
        self._slot_ready[slot] = done

    def _evict_layer(self, layer_idx):
        """Write layer ``layer_idx`` back to the host, on the compute stream."""
        slot = layer_idx % 2
        self.key_cache[layer_idx].copy_(self._device_key_cache[slot], non_blocking=True)
        self.value_cache[layer_idx].copy_(self._device_value_cache[slot], non_blocking=True)

    def update(self, key_states, value_states, layer_idx, cache_kwargs=None):
        cache_position = cache_kwargs["cache_position"]
        if layer_idx == 0:
            self._seen_tokens += key_states.shape[-2]
            self._prefetch_layer(0)
        slot = layer_idx % 2
        torch.cuda.current_stream(self.device).wait_event(self._slot_ready[slot])

        # the previous layer is done with its slot once its attention has run
        self._evict_layer((layer_idx - 1) % self.num_layers)
        self._prefetch_layer(layer_idx + 1)

        k_out = self._device_key_cache[slot]
        v_out = self._device_value_cache[slot]
        k_out.index_copy_(2, cache_position, key_states)
        v_out.index_copy_(2, cache_position, value_states)
        return k_out, v_out
