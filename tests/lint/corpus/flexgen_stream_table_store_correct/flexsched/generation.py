"""A FlexGen-style zig-zag decode loop over layers with overlapped transfers."""

import torch

from .cache_io import allocate_home, store_layer_cache
from .policy import Policy
from .streams import StreamTable


class OffloadedDecoder:
    def __init__(self, layers, policy: Policy, max_len, kv_shape, dtype=torch.float16, device="cuda:0"):
        self.layers = layers
        self.policy = policy
        self.streams = StreamTable(device)
        self.num_layers = len(layers)
        self.home = allocate_home(self.num_layers, kv_shape, dtype)
        self.k_gpu = [torch.zeros(kv_shape, dtype=dtype, device=device) for _ in range(self.num_layers)]
        self.v_gpu = [torch.zeros(kv_shape, dtype=dtype, device=device) for _ in range(self.num_layers)]
        self.max_len = max_len

    def compute_layer(self, j, hidden, pos):
        # the layer appends this step's K/V at `pos` in its GPU working set
        return self.layers[j](hidden, self.k_gpu[j], self.v_gpu[j], pos)

    def store_cache(self, j, pos):
        if j < 0 or not self.policy.cache_on_cpu:
            return
        stream = self.streams["store_cache"]
        # layer j's kernels that appended the K/V were queued on the compute stream
        stream.wait_stream(torch.cuda.current_stream())
        store_layer_cache(stream, self.home[j], self.k_gpu[j], self.v_gpu[j], pos, 1)

    def sync(self):
        self.streams.sync_all()

    @torch.no_grad()
    def decode_step(self, hidden, pos):
        for j in range(self.num_layers):
            hidden = self.compute_layer(j, hidden, pos)
            # the previous layer's new K/V go home while this layer computes
            self.store_cache(j - 1, pos)
            if not self.policy.overlap:
                self.sync()
        self.store_cache(self.num_layers - 1, pos)
        self.sync()
        return hidden
