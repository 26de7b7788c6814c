"""One cache layer of the offloaded cache, in the shape of transformers' DynamicLayer: keys and
values grow by concatenation on the compute stream; ``offload`` copies them into fresh pinned
host tensors and ``prefetch`` brings them back with ``.to(device)``. The layer itself never picks
a stream: the Cache orders and enters the stream around these calls."""

import torch


class OffloadedLayer:
    def __init__(self):
        self.keys = None
        self.values = None
        self.host_keys = None
        self.host_values = None
        self.device = None

    @property
    def on_device(self):
        return self.keys is not None

    def update(self, key_states, value_states):
        if self.keys is None and self.host_keys is None:
            self.device = key_states.device
            self.keys = key_states
            self.values = value_states
        else:
            self.keys = torch.cat([self.keys, key_states], dim=-2)
            self.values = torch.cat([self.values, value_states], dim=-2)
        return self.keys, self.values

    def offload(self, stream):
        self.host_keys = torch.empty_like(self.keys, device="cpu", pin_memory=True)
        self.host_values = torch.empty_like(self.values, device="cpu", pin_memory=True)
        self.host_keys.copy_(self.keys, non_blocking=True)
        self.host_values.copy_(self.values, non_blocking=True)
        self.keys.record_stream(stream)
        self.values.record_stream(stream)
        self.keys = None
        self.values = None

    def adopt(self, stream):
        # prefetched tensors were allocated on the prefetch stream
        if self.keys is not None:
            self.keys.record_stream(stream)
            self.values.record_stream(stream)

    def prefetch(self):
        if self.keys is None and self.host_keys is not None:
            self.keys = self.host_keys.to(self.device, non_blocking=True)
            self.values = self.host_values.to(self.device, non_blocking=True)
