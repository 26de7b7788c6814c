"""The overlapped schedule of FlexGen's ``generation_loop_overlap_single_batch``: for token i and
layer j it loads layer j+1's weights and cache on two load streams, computes layer j on the
compute stream, and stores layer j-1's new K/V on a store stream. FlexGen itself ends every layer
with ``torch.cuda.synchronize()``; this version replaces that with events: each layer's compute
event is recorded after its kernels are queued, the store of layer j-1 waits layer j-1's event,
and the cache load of layer j+1 waits the event of layer j-1, the last layer that used the same
device buffer, after that layer's store has read it."""

import torch

from flexsched.attention import SelfAttention
from flexsched.memory import CacheHome, DeviceKVBuffers


class OverlapScheduler:
    def __init__(self, host_weights, heads, head_dim, max_len, batch, dtype=torch.float16, device="cuda"):
        self.num_layers = len(host_weights)
        assert self.num_layers % 2 == 0, "layers alternate between two device buffers"
        self.device = torch.device(device)
        self.host_weights = host_weights
        rows = batch * heads
        self.buffers = DeviceKVBuffers(max_len, rows, head_dim, dtype, self.device)
        self.homes = [CacheHome(max_len, rows, head_dim, dtype) for _ in range(self.num_layers)]
        self.layers = [SelfAttention(j, heads, head_dim, self.buffers) for j in range(self.num_layers)]
        self.weight_read_buf = [None] * self.num_layers
        self.load_weight_stream = torch.cuda.Stream(self.device)
        self.load_cache_stream = torch.cuda.Stream(self.device)
        self.store_cache_stream = torch.cuda.Stream(self.device)
        self.compute_events = [torch.cuda.Event() for _ in range(self.num_layers)]

    def load_weight(self, j):
        j %= self.num_layers
        with torch.cuda.stream(self.load_weight_stream):
            self.weight_read_buf[j] = [w.to(self.device, non_blocking=True) for w in self.host_weights[j]]

    def load_cache(self, i, j):
        if i == 0:
            return
        j %= self.num_layers
        # the host home was last written by the store stream
        self.load_cache_stream.wait_stream(self.store_cache_stream)
        # the last layer that computed in this device buffer
        self.load_cache_stream.wait_event(self.compute_events[(j - 2) % self.num_layers])
        with torch.cuda.stream(self.load_cache_stream):
            self.layers[j].load_cache(self.homes[j], i)

    def compute_layer(self, i, j, hidden):
        compute = torch.cuda.current_stream()
        compute.wait_stream(self.load_weight_stream)
        compute.wait_stream(self.load_cache_stream)
        # the store of the layer that used this buffer before may still read it
        compute.wait_stream(self.store_cache_stream)
        weights = self.weight_read_buf[j]
        for w in weights:
            w.record_stream(compute)
        self.weight_read_buf[j] = None
        hidden = self.layers[j].forward(hidden, weights, i)
        self.compute_events[j].record(compute)
        return hidden

    def store_cache(self, i, j):
        if j < 0:
            return
        self.store_cache_stream.wait_event(self.compute_events[j])
        with torch.cuda.stream(self.store_cache_stream):
            self.layers[j].store_cache(self.homes[j], i)

    @torch.no_grad()
    def generate(self, hidden, gen_len):
        self.load_weight(0)
        self.load_cache(0, 0)
        for i in range(gen_len):
            for j in range(self.num_layers):
                # layer j-1's buffer is layer j+1's: store it before the load overwrites it
                self.store_cache(i, j - 1)
                self.load_weight(j + 1)
                self.load_cache(i + (j + 1) // self.num_layers, j + 1)
                hidden = self.compute_layer(i, j, hidden)
            self.store_cache(i, self.num_layers - 1)
        self.store_cache_stream.synchronize()
        return hidden
