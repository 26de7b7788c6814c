from typing import Any, Optional

import torch

from .cache_base import Cache, device_module_for


class OffloadedStaticCache(Cache):
    """Static-shape cache whose layers live in pinned host memory.

    Layer 0 stays on the device; every other layer is streamed through two
    on-device buffers, alternating by layer parity.
    """

    is_compileable = True

    def __init__(self, config, max_batch_size: int, max_cache_len: int, device, dtype=torch.float16,
                 offload_device="cpu") -> None:
        super().__init__()
        self.max_cache_len = max_cache_len
        self.device = torch.device(device)
        self.offload_device = torch.device(offload_device)
        self.device_module = device_module_for(self.device)
        head_dim = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
        num_kv_heads = getattr(config, "num_key_value_heads", None) or config.num_attention_heads
        cache_shape = (max_batch_size, num_kv_heads, max_cache_len, head_dim)
        pin = self.offload_device.type == "cpu"

        for i in range(config.num_hidden_layers):
            on = self.device if i == 0 else self.offload_device
            self.key_cache.append(torch.zeros(cache_shape, dtype=dtype, device=on, pin_memory=pin and i > 0))
            self.value_cache.append(torch.zeros(cache_shape, dtype=dtype, device=on, pin_memory=pin and i > 0))

        self._device_key_cache = [torch.zeros(cache_shape, dtype=dtype, device=self.device) for _ in range(2)]
        self._device_value_cache = [torch.zeros(cache_shape, dtype=dtype, device=self.device) for _ in range(2)]
        self._prefetch_stream = self.device_module.Stream(device=self.device)
        self._seen_tokens = 0

    def update(
        self,
        key_states: torch.Tensor,
        value_states: torch.Tensor,
        layer_idx: int,
        cache_kwargs: Optional[dict[str, Any]] = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        if layer_idx == 0:
            self._seen_tokens += key_states.shape[-2]
            k_out, v_out = self.key_cache[0], self.value_cache[0]
        else:
            self.device_module.current_stream(self.device).wait_stream(self._prefetch_stream)
            k_out = self._device_key_cache[layer_idx & 1]
            v_out = self._device_value_cache[layer_idx & 1]

        self._prefetch_layer(layer_idx + 1)

        cache_position = cache_kwargs.get("cache_position") if cache_kwargs is not None else None
        if cache_position is None:
            cache_position = torch.arange(key_states.shape[-2], device=self.device)
        k_out.index_copy_(2, cache_position, key_states)
        v_out.index_copy_(2, cache_position, value_states)

        if layer_idx != 0:
            # keep the host copy authoritative for the next decoding step
            host_position = cache_position.to(self.offload_device)
            self.key_cache[layer_idx].index_copy_(2, host_position, key_states.to(self.offload_device))
            self.value_cache[layer_idx].index_copy_(2, host_position, value_states.to(self.offload_device))
        return k_out, v_out

    def _prefetch_layer(self, layer_idx: int) -> None:
        if layer_idx >= len(self):
            return
        slot = layer_idx & 1
        with self.device_module.stream(self._prefetch_stream):
            for host, on_device in ((self.key_cache, self._device_key_cache),
                                    (self.value_cache, self._device_value_cache)):
                # expect: KVG004
                on_device[slot].copy_(host[layer_idx], non_blocking=True)

    def get_seq_length(self, layer_idx: Optional[int] = 0) -> int:
        return self._seen_tokens

    def reset(self) -> None:
        self._seen_tokens = 0
        for layer_idx in range(len(self)):
            self.key_cache[layer_idx].zero_()
            self.value_cache[layer_idx].zero_()
