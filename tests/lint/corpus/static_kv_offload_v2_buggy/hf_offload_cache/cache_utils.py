import logging
from typing import Any, Dict, List, Optional, Tuple

import torch

from .configuration_utils import OffloadCacheConfig
from .streams import create_prefetch_stream
from .tensor_ops import allocate_layer_cache, load_layer_into

logger = logging.getLogger(__name__)


class Cache:
    """Base, abstract class for all caches."""

    is_compileable = False

    def update(
        self,
        key_states: torch.Tensor,
        value_states: torch.Tensor,
        layer_idx: int,
        cache_kwargs: Optional[Dict[str, Any]] = None,
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        raise NotImplementedError("Make sure to implement `update` in a subclass.")

    def get_seq_length(self, layer_idx: Optional[int] = 0) -> int:
        raise NotImplementedError("Make sure to implement `get_seq_length` in a subclass.")


class OffloadedStaticCache(Cache):
    """
    Static cache that keeps every layer but the first on the offload device and streams
    the next layer into one of two alternating on-device buffers while the current layer runs.
    """

    is_compileable = True

    def __init__(self, config: OffloadCacheConfig) -> None:
        self.config = config
        self.max_batch_size = config.max_batch_size
        self.max_cache_len = config.max_cache_len
        self.dtype = config.dtype
        self.device = torch.device(config.device)
        self.offload_device = torch.device(config.offload_device)
        self._seen_tokens = 0

        shape = config.layer_shape
        self._device_key_cache: List[torch.Tensor] = []
        self._device_value_cache: List[torch.Tensor] = []
        for _ in range(2):
            key, value = allocate_layer_cache(shape, self.dtype, self.device)
            self._device_key_cache.append(key)
            self._device_value_cache.append(value)

        self.key_cache: List[torch.Tensor] = []
        self.value_cache: List[torch.Tensor] = []
        for layer_idx in range(config.num_hidden_layers):
            device = self.device if layer_idx == 0 else self.offload_device
            key, value = allocate_layer_cache(shape, self.dtype, device)
            self.key_cache.append(key)
            self.value_cache.append(value)

        self._prefetch_stream = create_prefetch_stream(self.device)
        logger.debug(
            "OffloadedStaticCache: %d layers, first layer resident on %s", config.num_hidden_layers, self.device
        )

    def update(
        self,
        key_states: torch.Tensor,
        value_states: torch.Tensor,
        layer_idx: int,
        cache_kwargs: Optional[Dict[str, Any]] = None,
    ) -> Tuple[torch.Tensor, torch.Tensor]:
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

        cache_position = cache_kwargs.get("cache_position") if cache_kwargs is not None else None
        if cache_position is None:
            cache_position = torch.arange(key_states.shape[-2], device=key_states.device)

        k_out.index_copy_(2, cache_position, key_states)
        v_out.index_copy_(2, cache_position, value_states)
        if layer_idx != 0:
            host_position = cache_position.to(self.offload_device)
            self.key_cache[layer_idx].index_copy_(2, host_position, key_states.to(self.offload_device))
            self.value_cache[layer_idx].index_copy_(2, host_position, value_states.to(self.offload_device))
        return k_out, v_out

    def get_seq_length(self, layer_idx: Optional[int] = 0) -> int:
        return self._seen_tokens

    def get_max_cache_shape(self) -> Optional[int]:
        return self.max_cache_len

    def reset(self) -> None:
        self._seen_tokens = 0
        for layer_idx in range(len(self.key_cache)):
            self.key_cache[layer_idx].zero_()
            self.value_cache[layer_idx].zero_()

    def _prefetch_layer(self, layer_idx: int) -> None:
        """Starts copying `layer_idx` into its on-device buffer; layers must be visited in order."""
        if layer_idx >= len(self.key_cache) or layer_idx == 0:
            return
        if self._prefetch_stream is not None:
            with torch.cuda.stream(self._prefetch_stream):
                self._prefetch_layer_in_context(layer_idx)
        else:
            self._prefetch_layer_in_context(layer_idx)

    def _prefetch_layer_in_context(self, layer_idx: int) -> None:
        load_layer_into(
            self._device_key_cache[layer_idx & 1],
            self._device_value_cache[layer_idx & 1],
            self.key_cache[layer_idx],
            self.value_cache[layer_idx],
        )
