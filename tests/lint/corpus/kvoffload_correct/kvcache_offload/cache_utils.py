import logging
from typing import Any, Dict, List, Optional, Tuple

import torch

from .configuration import OffloadedCacheConfig
from .constants import KV_SEQ_DIM, MIN_LAYERS_FOR_EVICTION
from .streams import get_transfer_stream
from .tensor_utils import offload_to_host, prefetch_to_device

logger = logging.getLogger(__name__)


class OffloadedCache:
    """
    Dynamic key/value cache that keeps only the layers around the one being computed on the
    accelerator. Layer ``k - 1`` is moved to host memory and layer ``k + 1`` is uploaded
    while layer ``k`` runs. All transfers go through one side stream.
    """

    def __init__(self, config: Optional[OffloadedCacheConfig] = None) -> None:
        if not torch.cuda.is_available():
            raise RuntimeError("OffloadedCache can only be used with a GPU")
        self.config = config or OffloadedCacheConfig()
        self.key_cache: List[torch.Tensor] = []
        self.value_cache: List[torch.Tensor] = []
        self.original_device: List[torch.device] = []
        self.transfer_stream = get_transfer_stream(self.config.device_index, self.config.stream_priority)
        self._seen_tokens = 0

    def __len__(self) -> int:
        return len(self.key_cache)

    def get_seq_length(self, layer_idx: int = 0) -> int:
        if layer_idx >= len(self):
            return 0
        return self.key_cache[layer_idx].shape[KV_SEQ_DIM]

    def _wait_for_layer(self, layer_idx: int) -> None:
        # compute must not read a layer before its upload has landed
        compute_stream = torch.cuda.current_stream()
        compute_stream.wait_stream(self.transfer_stream)
        device = self.original_device[layer_idx]
        if self.key_cache[layer_idx].device != device:
            self.key_cache[layer_idx] = self.key_cache[layer_idx].to(device)
            self.value_cache[layer_idx] = self.value_cache[layer_idx].to(device)
        # uploaded blocks belong to the transfer stream's pool; they are now also used by compute
        self.key_cache[layer_idx].record_stream(compute_stream)
        self.value_cache[layer_idx].record_stream(compute_stream)

    def prefetch_layer(self, layer_idx: int) -> None:
        if layer_idx >= len(self):
            return
        device = self.original_device[layer_idx]
        self.key_cache[layer_idx] = prefetch_to_device(self.key_cache[layer_idx], device, self.transfer_stream)
        self.value_cache[layer_idx] = prefetch_to_device(self.value_cache[layer_idx], device, self.transfer_stream)

    def evict_previous_layer(self, layer_idx: int) -> None:
        if len(self) < MIN_LAYERS_FOR_EVICTION:
            return
        prev_layer_idx = (layer_idx - 1) % len(self)
        if self.key_cache[prev_layer_idx].device.type == "cpu":
            return
        self.transfer_stream.wait_stream(torch.cuda.current_stream())
        pin = self.config.pin_memory
        self.key_cache[prev_layer_idx] = offload_to_host(self.key_cache[prev_layer_idx], self.transfer_stream, pin)
        self.value_cache[prev_layer_idx] = offload_to_host(self.value_cache[prev_layer_idx], self.transfer_stream, pin)

    def update(
        self,
        key_states: torch.Tensor,
        value_states: torch.Tensor,
        layer_idx: int,
        cache_kwargs: Optional[Dict[str, Any]] = None,
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        if layer_idx == 0:
            self._seen_tokens += key_states.shape[KV_SEQ_DIM]

        if len(self) <= layer_idx:
            # prefill: the layer is created on the device it was computed on
            self.key_cache.append(key_states)
            self.value_cache.append(value_states)
            self.original_device.append(key_states.device)
            if layer_idx > 0:
                self.evict_previous_layer(layer_idx)
            return key_states, value_states

        self._wait_for_layer(layer_idx)
        self.key_cache[layer_idx] = torch.cat([self.key_cache[layer_idx], key_states], dim=KV_SEQ_DIM)
        self.value_cache[layer_idx] = torch.cat([self.value_cache[layer_idx], value_states], dim=KV_SEQ_DIM)
        keys, values = self.key_cache[layer_idx], self.value_cache[layer_idx]

        self.evict_previous_layer(layer_idx)
        self.prefetch_layer((layer_idx + 1) % len(self))
        return keys, values

    def reorder_cache(self, beam_idx: torch.LongTensor) -> None:
        for layer_idx in range(len(self)):
            self._wait_for_layer(layer_idx)
            device = self.key_cache[layer_idx].device
            self.key_cache[layer_idx] = self.key_cache[layer_idx].index_select(0, beam_idx.to(device))
            self.value_cache[layer_idx] = self.value_cache[layer_idx].index_select(0, beam_idx.to(device))
