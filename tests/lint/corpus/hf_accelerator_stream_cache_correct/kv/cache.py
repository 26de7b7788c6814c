"""The Cache side, in the shape of transformers' Cache with ``offloading=True`` on torch >= 2.7:
streams are ``torch.Stream(device)`` objects entered with ``with stream:``, and the compute stream
is named through ``torch.accelerator.current_stream()``. ``update`` makes the compute stream wait
for the prefetch of this layer, prefetches the next one and offloads this one after appending.
Both offload paths first make the offload stream wait on ``torch.accelerator.current_stream()``;
``offload_all`` then switches the current stream with ``torch.accelerator.set_stream``."""

import torch

from kv.layers import OffloadedLayer


class OffloadedCache:
    def __init__(self, num_layers, device):
        self.layers = [OffloadedLayer() for _ in range(num_layers)]
        self.device = torch.device(device)
        self.prefetch_stream = torch.Stream(self.device)
        self.offload_stream = torch.Stream(self.device)

    def prefetch(self, layer_idx):
        layer_idx = layer_idx if layer_idx < len(self.layers) else 0
        # the pinned tensors are written by the offload stream
        self.prefetch_stream.wait_stream(self.offload_stream)
        with self.prefetch_stream:
            self.layers[layer_idx].prefetch()

    def offload(self, layer_idx):
        self.offload_stream.wait_stream(torch.accelerator.current_stream())
        with self.offload_stream:
            self.layers[layer_idx].offload(self.offload_stream)

    def update(self, key_states, value_states, layer_idx):
        compute = torch.accelerator.current_stream()
        compute.wait_stream(self.prefetch_stream)
        self.layers[layer_idx].adopt(compute)
        self.prefetch(layer_idx + 1)
        keys, values = self.layers[layer_idx].update(key_states, value_states)
        self.offload(layer_idx)
        return keys, values

    def offload_all(self):
        previous = torch.accelerator.current_stream()
        self.offload_stream.wait_stream(previous)
        torch.accelerator.set_stream(self.offload_stream)
        for layer in self.layers:
            if layer.on_device:
                layer.host_keys = layer.keys.to("cpu", non_blocking=True)
                layer.host_values = layer.values.to("cpu", non_blocking=True)
                layer.keys.record_stream(self.offload_stream)
                layer.values.record_stream(self.offload_stream)
                layer.keys = None
                layer.values = None
        torch.accelerator.set_stream(previous)
        self.offload_stream.synchronize()
