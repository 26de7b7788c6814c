from typing import Any, Dict, List, Optional, Tuple

import torch

from .configuration import MIN_LAYERS_FOR_OFFLOAD, OffloadConfig
from .offloader import LayerOffloader


class OffloadedLayer:
    def __init__(self, device: torch.device):
        self.device = device
        self.keys: Optional[torch.Tensor] = None
        self.values: Optional[torch.Tensor] = None
        self.host_keys: Optional[torch.Tensor] = None
        self.host_values: Optional[torch.Tensor] = None
        self.ready_event: Optional[torch.cuda.Event] = None
        self.offload_event: Optional[torch.cuda.Event] = None
        self.fetch_event: Optional[torch.cuda.Event] = None

    def get_seq_length(self) -> int:
        source = self.keys if self.keys is not None else self.host_keys
        return 0 if source is None else source.shape[-2]


class OffloadedDynamicCache:
    """
    A dynamic KV cache that keeps only a couple of layers on the accelerator.

    While layer `k` runs, layer `k + 1` is fetched on a side stream and layer
    `k - 1` is evicted to host memory on another side stream.
    """

    def __init__(self, config: Optional[OffloadConfig] = None) -> None:
        if not torch.cuda.is_available():
            raise RuntimeError("OffloadedDynamicCache can only be used with a GPU")
        self.config = config or OffloadConfig()
        self.layers: List[OffloadedLayer] = []
        self._offloader: Optional[LayerOffloader] = None

    def __len__(self) -> int:
        return len(self.layers)

    def get_seq_length(self, layer_idx: int = 0) -> int:
        if layer_idx >= len(self.layers):
            return 0
        return self.layers[layer_idx].get_seq_length()

    def update(
        self,
        key_states: torch.Tensor,
        value_states: torch.Tensor,
        layer_idx: int,
        cache_kwargs: Optional[Dict[str, Any]] = None,
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        if self._offloader is None:
            self._offloader = LayerOffloader(self.config, key_states.device)

        if len(self.layers) <= layer_idx:
            layer = OffloadedLayer(key_states.device)
            layer.keys = key_states
            layer.values = value_states
            self.layers.append(layer)
        else:
            layer = self.layers[layer_idx]
            self._offloader.wait_for_layer(layer)
            layer.keys = torch.cat([layer.keys, key_states], dim=-2)
            layer.values = torch.cat([layer.values, value_states], dim=-2)
        layer.ready_event = torch.cuda.current_stream(layer.device).record_event()

        keys, values = layer.keys, layer.values
        if len(self.layers) >= MIN_LAYERS_FOR_OFFLOAD:
            num_layers = len(self.layers)
            self._offloader.prefetch(self.layers, (layer_idx + 1) % num_layers)
            self._offloader.evict(self.layers[(layer_idx - 1) % num_layers])
        return keys, values
