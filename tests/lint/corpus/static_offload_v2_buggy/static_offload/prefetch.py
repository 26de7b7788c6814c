import logging
from typing import List, Optional

import torch

logger = logging.getLogger(__name__)


class LayerPrefetcher:
    """Copies offloaded layers into the rotating device buffers on a dedicated stream."""

    def __init__(
        self,
        device: torch.device,
        host_keys: List[torch.Tensor],
        host_values: List[torch.Tensor],
        device_keys: List[torch.Tensor],
        device_values: List[torch.Tensor],
    ) -> None:
        self.device = device
        self.host_keys = host_keys
        self.host_values = host_values
        self.device_keys = device_keys
        self.device_values = device_values
        self.device_module = torch.get_device_module(device)
        self.stream: Optional[object] = None
        if device.type != "cpu":
            self.stream = self.device_module.Stream(device)

    def wait(self) -> None:
        if self.stream is not None:
            self.device_module.current_stream(self.device).wait_stream(self.stream)

    def buffers_for(self, layer_idx: int):
        slot = layer_idx % len(self.device_keys)
        return self.device_keys[slot], self.device_values[slot]

    def prefetch(self, layer_idx: int) -> None:
        if layer_idx >= len(self.host_keys):
            return
        if self.stream is None:
            self._copy_layer(layer_idx)
            return
        with self.device_module.stream(self.stream):
            self._copy_layer(layer_idx)

    def _copy_layer(self, layer_idx: int) -> None:
        dst_key, dst_value = self.buffers_for(layer_idx)
        # expect: KVG004
        dst_key.copy_(self.host_keys[layer_idx], non_blocking=True)
        # expect: KVG004
        dst_value.copy_(self.host_values[layer_idx], non_blocking=True)
