from __future__ import annotations

from typing import Optional

import torch
from sglang.srt.mem_cache.memory_pool import MHATokenToKVPool

from .layer_done import LayerDoneCounter


class HiCacheMHATokenToKVPool(MHATokenToKVPool):
    """Device KV pool whose per-layer getters block the forward stream until
    the hierarchical cache has loaded that layer back."""

    layer_transfer_counter: Optional[LayerDoneCounter] = None

    def register_layer_transfer_counter(self, counter: LayerDoneCounter) -> None:
        self.layer_transfer_counter = counter

    def _wait_layer(self, layer_id: int) -> None:
        if self.layer_transfer_counter is not None:
            self.layer_transfer_counter.wait_until(layer_id - self.start_layer)

    def get_key_buffer(self, layer_id: int) -> torch.Tensor:
        self._wait_layer(layer_id)
        return self.k_buffer[layer_id - self.start_layer]

    def get_value_buffer(self, layer_id: int) -> torch.Tensor:
        self._wait_layer(layer_id)
        return self.v_buffer[layer_id - self.start_layer]

    def get_kv_buffer(self, layer_id: int) -> tuple[torch.Tensor, torch.Tensor]:
        return self.get_key_buffer(layer_id), self.get_value_buffer(layer_id)
