"""Activation offloading in the style of megatron-core's fine-grained offload: every layer
marks the point where its saved activation is final with an event of its own, and a D2H
stream moves the activation to pinned memory behind that event. Backward brings it back on
an H2D stream into a fresh device buffer."""

import torch


class LayerActivationOffloader:
    def __init__(self, num_layers):
        self.num_layers = num_layers
        self.d2h_stream = torch.cuda.Stream()
        self.h2d_stream = torch.cuda.Stream()
        # one event per layer, reused every iteration: timing is never read
        self.ready = [torch.cuda.Event(enable_timing=False) for _ in range(num_layers)]
        self.offloaded = [torch.cuda.Event(enable_timing=False) for _ in range(num_layers)]
        self.host_copies = {}

    def mark_ready(self, layer_idx):
        """Called by the layer once nothing will write its saved activation any more."""
        self.ready[layer_idx].record()

    def offload(self, layer_idx, activation):
        self.d2h_stream.wait_event(self.ready[layer_idx])
        with torch.cuda.stream(self.d2h_stream):
            host = torch.empty(activation.shape, dtype=activation.dtype, pin_memory=True)
            # expect: KVG001
            host.copy_(activation, non_blocking=True)
            self.offloaded[layer_idx].record()
        # keep the device memory alive until the copy has read it
        activation.record_stream(self.d2h_stream)
        self.host_copies[layer_idx] = host

    def reload(self, layer_idx, device):
        host = self.host_copies.pop(layer_idx)
        self.h2d_stream.wait_event(self.offloaded[layer_idx])
        with torch.cuda.stream(self.h2d_stream):
            restored = torch.empty(host.shape, dtype=host.dtype, device=device)
            restored.copy_(host, non_blocking=True)
        # backward kernels on the compute stream consume it next
        torch.cuda.current_stream().wait_stream(self.h2d_stream)
        restored.record_stream(torch.cuda.current_stream())
        return restored
