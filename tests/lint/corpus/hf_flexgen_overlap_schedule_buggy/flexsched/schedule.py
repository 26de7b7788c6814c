"""The overlapped schedule of FlexGen's ``generation_loop_overlap_single_batch``: for token i and
layer j it loads layer j+1's weights and cache on two load streams, computes layer j on the
compute stream, and stores layer j-1's new K/V on a store stream. FlexGen itself ends every layer
with ``torch.cuda.synchronize()``; this version replaces that with events. Bugs: the compute event
of a layer is recorded when the layer starts, before its kernels are queued, so the store of
layer j-1 that waits it is not ordered behind layer j-1's K/V writes (KVG001 in
flexsched/memory.py); the cache load of layer j+1 overwrites the device buffer layer j-1 computed
in with no barrier behind the compute stream, while layer j-1's attention may still read it
(KVG004 in flexsched/memory.py)."""

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
        with torch.cuda.stream(self.load_cache_stream):
            self.layers[j].load_cache(self.homes[j], i)

    def compute_layer(self, i, j, hidden):
        self.compute_events[j].record()
        compute = torch.cuda.current_stream()
        compute.wait_stream(self.load_weight_stream)
        compute.wait_stream(self.load_cache_stream)
        # the store of the layer that used this buffer before may still read it
        compute.wait_stream(self.store_cache_stream)
        weights = self.weight_read_buf[j]
        for w in weights:
            w.record_stream(compute)
        self.weight_read_buf[j] = None
        return self.layers[j].forward(hidden, weights, i)

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
                self.load_weight(j + 1)
                self.load_cache(i + (j + 1) // self.num_layers, j + 1)
                hidden = self.compute_layer(i, j, hidden)
                self.store_cache(i, j - 1)
            self.store_cache(i, self.num_layers - 1)
        self.store_cache_stream.synchronize()
        return hidden
