import logging
from typing import Any, Optional, Union

import torch

from .configuration import CacheOffloadConfig
from .streams import side_stream
from .transfer import alloc_host_pair, fetch_tokens, spill_tokens

logger = logging.getLogger(__name__)


class HostOffloadedCache:
    """
    Keeps the whole key/value history of every layer in (pinned) host memory.

    Only the layer currently being computed and the next one live on the device:
    while layer ``i`` runs, layer ``i + 1`` is brought in on the prefetch stream and
    the tokens produced by layer ``i`` are written back on the offload stream.
    """

    is_compileable = False

    def __init__(self, config: CacheOffloadConfig, device: Union[str, torch.device] = "cuda") -> None:
        self.config = config
        self.device = torch.device(device)
        self.cache_dtype = config.cache_dtype
        self._host_keys: list[torch.Tensor] = []
        self._host_values: list[torch.Tensor] = []
        for _ in range(config.num_hidden_layers):
            keys, values = alloc_host_pair(config.host_shape(), self.cache_dtype, config.pin_host_memory)
            self._host_keys.append(keys)
            self._host_values.append(values)
        self._seen_tokens = [0] * config.num_hidden_layers
        self._resident: dict[int, tuple[torch.Tensor, torch.Tensor]] = {}
        self._offload_stream = side_stream(self.device, "offload", config.offload_stream_priority)
        self._prefetch_stream = side_stream(self.device, "prefetch", config.prefetch_stream_priority)

    def __len__(self) -> int:
        return sum(1 for n in self._seen_tokens if n > 0)

    def get_seq_length(self, layer_idx: int = 0) -> int:
        return self._seen_tokens[layer_idx]

    def get_max_cache_shape(self) -> int:
        return self.config.max_cache_len

    def _prefetch_layer(self, layer_idx: int) -> None:
        if layer_idx >= len(self._seen_tokens) or self._seen_tokens[layer_idx] == 0:
            return
        if layer_idx in self._resident:
            return
        # the host rows of this layer were last written on the offload stream
        self._prefetch_stream.wait_stream(self._offload_stream)
        self._resident[layer_idx] = fetch_tokens(
            self._host_keys[layer_idx],
            self._host_values[layer_idx],
            self._seen_tokens[layer_idx],
            self.device,
            self._prefetch_stream,
        )

    def _take_resident(self, layer_idx: int) -> tuple[torch.Tensor, torch.Tensor]:
        self._prefetch_layer(layer_idx)
        compute = torch.cuda.current_stream(self.device)
        compute.wait_stream(self._prefetch_stream)
        past_k, past_v = self._resident.pop(layer_idx)
        past_k.record_stream(compute)
        past_v.record_stream(compute)
        return past_k, past_v

    def update(
        self,
        key_states: torch.Tensor,
        value_states: torch.Tensor,
        layer_idx: int,
        cache_kwargs: Optional[dict[str, Any]] = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        new_k = key_states.to(self.cache_dtype)
        new_v = value_states.to(self.cache_dtype)
        start = self._seen_tokens[layer_idx]
        if start + new_k.shape[-2] > self.config.max_cache_len:
            raise ValueError(
                f"layer {layer_idx}: {start + new_k.shape[-2]} tokens exceed max_cache_len={self.config.max_cache_len}"
            )

        compute = torch.cuda.current_stream(self.device)
        if start == 0:
            full_k, full_v = new_k, new_v
        else:
            past_k, past_v = self._take_resident(layer_idx)
            full_k = torch.cat([past_k, new_k], dim=-2)
            full_v = torch.cat([past_v, new_v], dim=-2)

        self._offload_stream.wait_stream(compute)
        spill_tokens(
            self._host_keys[layer_idx],
            self._host_values[layer_idx],
            new_k,
            new_v,
            start,
            self._offload_stream,
        )
        self._seen_tokens[layer_idx] = start + new_k.shape[-2]
        self._prefetch_layer(layer_idx + 1)
        return full_k, full_v

    def reset(self) -> None:
        self._offload_stream.synchronize()
        self._prefetch_stream.synchronize()
        self._resident.clear()
        self._seen_tokens = [0] * self.config.num_hidden_layers
        logger.debug("cache reset (%d layers)", self.config.num_hidden_layers)
