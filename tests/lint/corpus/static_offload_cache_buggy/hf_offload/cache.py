import logging
from typing import Any, Dict, List, Optional, Tuple

import torch

from .configuration import OffloadedStaticCacheConfig
from .stream_utils import allocate_cache_tensor, create_prefetch_stream
from .transfer import load_layer_into, write_back_tokens

logger = logging.getLogger(__name__)


class OffloadedStaticCache:
    """
    Static cache whose layers are kept on the offload device, except the first one.

    Two on-device buffers are used in turn: while layer `i` computes on buffer `i & 1`,
    layer `i + 1` is brought into buffer `(i + 1) & 1` on a prefetch stream.
    """

    def __init__(self, config: OffloadedStaticCacheConfig) -> None:
        self.config = config
        self.device = torch.device(config.device)
        self.offload_device = torch.device(config.offload_device)
        self.num_hidden_layers = config.num_hidden_layers
        shape = config.cache_shape

        self.key_cache: List[torch.Tensor] = []
        self.value_cache: List[torch.Tensor] = []
        for layer_idx in range(self.num_hidden_layers):
            device = self.device if layer_idx == 0 else self.offload_device
            pin = config.pin_memory and layer_idx != 0
            self.key_cache.append(allocate_cache_tensor(shape, config.dtype, device, pin))
            self.value_cache.append(allocate_cache_tensor(shape, config.dtype, device, pin))

        self._device_key_cache = [allocate_cache_tensor(shape, config.dtype, self.device, False) for _ in range(2)]
        self._device_value_cache = [allocate_cache_tensor(shape, config.dtype, self.device, False) for _ in range(2)]
        self._prefetch_stream = create_prefetch_stream(self.device)
        self._seen_tokens = 0
        logger.info("Offloaded static cache with %d layers on %s", self.num_hidden_layers, self.offload_device)

    def get_seq_length(self, layer_idx: int = 0) -> int:
        return self._seen_tokens

    def update(
        self,
        key_states: torch.Tensor,
        value_states: torch.Tensor,
        layer_idx: int,
        cache_kwargs: Optional[Dict[str, Any]] = None,
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        cache_position = cache_kwargs.get("cache_position") if cache_kwargs is not None else None
        if cache_position is None:
            cache_position = torch.arange(
                self._seen_tokens, self._seen_tokens + key_states.shape[-2], device=self.device
            )

        if layer_idx == 0:
            self._seen_tokens += key_states.shape[-2]
            k_out = self.key_cache[0]
            v_out = self.value_cache[0]
        else:
            if self._prefetch_stream is not None:
                torch.cuda.current_stream(self.device).wait_stream(self._prefetch_stream)
            k_out = self._device_key_cache[layer_idx & 1]
            v_out = self._device_value_cache[layer_idx & 1]

        self._prefetch_layer(layer_idx + 1)

        k_out.index_copy_(2, cache_position, key_states)
        v_out.index_copy_(2, cache_position, value_states)

        if layer_idx != 0:
            write_back_tokens(self.key_cache[layer_idx], key_states, cache_position)
            write_back_tokens(self.value_cache[layer_idx], value_states, cache_position)

        return k_out, v_out

    def _prefetch_layer(self, layer_idx: int) -> None:
        if layer_idx >= self.num_hidden_layers:
            return
        if self._prefetch_stream is None:
            self._prefetch_layer_in_context(layer_idx)
            return
        with torch.cuda.stream(self._prefetch_stream):
            self._prefetch_layer_in_context(layer_idx)

    def _prefetch_layer_in_context(self, layer_idx: int) -> None:
        load_layer_into(
            self._device_key_cache[layer_idx & 1],
            self._device_value_cache[layer_idx & 1],
            self.key_cache[layer_idx],
            self.value_cache[layer_idx],
        )

    def reset(self) -> None:
        if self._prefetch_stream is not None:
            self._prefetch_stream.synchronize()
        for layer_idx in range(self.num_hidden_layers):
            self.key_cache[layer_idx].zero_()
            self.value_cache[layer_idx].zero_()
        self._seen_tokens = 0
