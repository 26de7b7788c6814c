import logging
from typing import Any, Dict, List, Optional, Tuple

import torch

from .configuration import CacheOffloadConfig
from .layers import DynamicLayer
from .streams import compute_stream, get_offload_stream

logger = logging.getLogger(__name__)


class OffloadedHybridCache:
    """
    Dynamic cache keeping only the layer being computed (and the next one) on the accelerator.
    Layer `i + 1` is prefetched while layer `i` runs, and layer `i` is sent back to the host
    right after its states are updated.
    """

    def __init__(self, config: CacheOffloadConfig) -> None:
        self.config = config
        self.layers: List[DynamicLayer] = [DynamicLayer() for _ in range(config.num_hidden_layers)]
        self.is_sliding = config.is_sliding
        self.only_non_sliding = config.offload_only_non_sliding
        self._transfer_stream: Optional[torch.cuda.Stream] = None

    def _stream_for(self, device: torch.device) -> torch.cuda.Stream:
        if self._transfer_stream is None:
            self._transfer_stream = get_offload_stream(device)
        return self._transfer_stream

    def prefetch(self, layer_idx: int) -> None:
        candidates = [
            i for i in range(layer_idx, len(self.layers))
            if not (self.only_non_sliding and self.is_sliding[i])
        ]
        if not candidates:
            return
        target = candidates[0]
        device = self.layers[target].device
        if device is None:
            return
        with torch.cuda.stream(self._stream_for(device)):
            self.layers[target].prefetch()

    def offload(self, layer_idx: int) -> None:
        if self.only_non_sliding and self.is_sliding[layer_idx]:
            return
        layer = self.layers[layer_idx]
        stream = self._stream_for(layer.device)
        stream.wait_stream(compute_stream(layer.device))
        with torch.cuda.stream(stream):
            released = layer.offload()
        if released is not None:
            for tensor in released:
                tensor.record_stream(stream)

    def update(
        self,
        key_states: torch.Tensor,
        value_states: torch.Tensor,
        layer_idx: int,
        cache_kwargs: Optional[Dict[str, Any]] = None,
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        device = key_states.device
        compute_stream(device).wait_stream(self._stream_for(device))
        self.prefetch(layer_idx + 1)

        keys, values = self.layers[layer_idx].update(key_states, value_states, cache_kwargs)

        self.offload(layer_idx)
        return keys, values

    def get_seq_length(self, layer_idx: int = 0) -> int:
        return self.layers[layer_idx].get_seq_length()

    def __len__(self) -> int:
        return len(self.layers)
