"""Copies a prefilled static cache to pinned host memory, one side stream per device."""

from dataclasses import dataclass

import torch


@dataclass
class LayerSnapshot:
    key: torch.Tensor
    value: torch.Tensor
    done: torch.cuda.Event


class PromptCacheSnapshotter:
    def __init__(self, cache):
        self.cache = cache
        self.devices = sorted(set(cache.layer_device_map), key=str)
        self.streams = {device: torch.cuda.Stream(device=device) for device in self.devices}
        self.snapshots = {}

    def _stream_for(self, layer_idx):
        return self.streams[self.cache.layer_device_map[layer_idx]]

    def snapshot(self, prefix_len):
        for layer_idx in range(len(self.cache)):
            device = self.cache.layer_device_map[layer_idx]
            stream = self._stream_for(layer_idx)
            # the layer's prefill kernels must have written its cache before we read it; they
            # ran on the current stream of the layer's device, not of the current device
            stream.wait_stream(torch.cuda.current_stream(device))
            k_dev = self.cache.key_cache[layer_idx][:, :, :prefix_len]
            v_dev = self.cache.value_cache[layer_idx][:, :, :prefix_len]
            k_host = torch.empty(k_dev.shape, dtype=k_dev.dtype, pin_memory=True)
            v_host = torch.empty(v_dev.shape, dtype=v_dev.dtype, pin_memory=True)
            with torch.cuda.stream(stream):
                k_host.copy_(k_dev, non_blocking=True)
                v_host.copy_(v_dev, non_blocking=True)
                done = torch.cuda.Event()
                done.record(stream)
            self.snapshots[layer_idx] = LayerSnapshot(k_host, v_host, done)

    def save(self, path):
        state = {}
        for layer_idx, snap in self.snapshots.items():
            snap.done.synchronize()
            state[f"layer{layer_idx}.key"] = snap.key
            state[f"layer{layer_idx}.value"] = snap.value
        torch.save(state, path)
