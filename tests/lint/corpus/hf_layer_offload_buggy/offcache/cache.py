"""A cache that keeps only the layer being computed (and the next one) on the accelerator.

While layer ``i`` runs, layer ``i + 1`` is brought back on a prefetch stream, and layer ``i`` is
sent back to host memory as soon as its update is done. Both transfers go through the same
prefetch stream so that the compute stream only ever has to wait on one stream.
"""

from typing import Optional

import torch

from .layers import DynamicLayer, SlidingWindowLayer


class OffloadedDynamicCache:
    def __init__(self, layer_types: list[str], sliding_window: Optional[int] = None,
                 offloading: bool = True, offload_only_non_sliding: bool = True):
        self.layers = [
            SlidingWindowLayer(sliding_window) if kind == "sliding_attention" else DynamicLayer()
            for kind in layer_types
        ]
        self.offloading = offloading
        self.only_non_sliding = offload_only_non_sliding
        self.is_sliding = [layer.is_sliding for layer in self.layers]
        # one prefetch stream per device the cache ever lives on
        self._prefetch_streams: dict[int, torch.cuda.Stream] = {}
        self._device_index: Optional[int] = None

    @property
    def prefetch_stream(self) -> torch.cuda.Stream:
        index = self._device_index if self._device_index is not None else torch.cuda.current_device()
        if index not in self._prefetch_streams:
            self._prefetch_streams[index] = torch.cuda.Stream(device=index)
        return self._prefetch_streams[index]

    def _next_offloaded_layer(self, layer_idx: int) -> int:
        candidates = range(layer_idx + 1, layer_idx + 1 + len(self.layers))
        for idx in candidates:
            idx = idx % len(self.layers)
            if not (self.only_non_sliding and self.is_sliding[idx]):
                return idx
        return layer_idx

    def prefetch(self, layer_idx: int):
        layer_idx = self._next_offloaded_layer(layer_idx)
        with self.prefetch_stream:
            self.layers[layer_idx].prefetch()

    def offload(self, layer_idx: int):
        if self.only_non_sliding and self.is_sliding[layer_idx]:
            return
        # D2H on the prefetch stream as well, so it overlaps the next layer's compute
        with self.prefetch_stream:
            self.layers[layer_idx].offload()

    def update(self, key_states: torch.Tensor, value_states: torch.Tensor, layer_idx: int):
        if self.offloading:
            if self._device_index is None:
                self._device_index = key_states.device.index
            # this layer was prefetched during the previous one: make compute wait for it
            compute_stream = torch.cuda.default_stream(key_states.device)
            compute_stream.wait_stream(self.prefetch_stream)
            self.layers[layer_idx].mark_used_on(compute_stream)
            self.prefetch(layer_idx)
        keys, values = self.layers[layer_idx].update(key_states, value_states)
        if self.offloading:
            self.offload(layer_idx)
        return keys, values

    def get_seq_length(self, layer_idx: int = 0) -> int:
        return self.layers[layer_idx].get_seq_length()
