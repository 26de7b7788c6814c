"""FlexGen-style overlapped decoding: while layer j computes, layer j+1's weights and KV
cache are loaded and layer j-1's new KV entries are stored, each on its own stream. As in
FlexGen, ordering comes from a full device synchronize after every layer: each transfer is
issued only after the kernels that last used its buffers have finished.

Bug: the per-layer synchronize was dropped for speed (one per token is kept), so layer
j+1's loads overwrite the buffers layer j-1's kernels may still read, and layer j-1's store
reads the KV entries those kernels may still be writing."""

import torch

from .copy_utils import general_copy


class OverlapEngine:
    def __init__(self, layers, weight_numels, cache_shape, max_len):
        self.layers = list(layers)
        n = len(self.layers)
        self.streams = {name: torch.cuda.Stream() for name in ("load_weight", "load_cache", "store_cache")}
        self.weight_home = [torch.empty(numel, dtype=torch.float16, pin_memory=True) for numel in weight_numels]
        self.cache_home = [torch.zeros((max_len,) + cache_shape, dtype=torch.float16, pin_memory=True) for _ in range(n)]
        self.weight_buf = [torch.empty(max(weight_numels), dtype=torch.float16, device="cuda") for _ in range(2)]
        self.cache_read_buf = [torch.empty((max_len,) + cache_shape, dtype=torch.float16, device="cuda") for _ in range(2)]
        self.cache_write_buf = [torch.empty((1,) + cache_shape, dtype=torch.float16, device="cuda") for _ in range(2)]

    def load_weight(self, j):
        with torch.cuda.stream(self.streams["load_weight"]):
            numel = self.weight_home[j].numel()
            general_copy(self.weight_buf[j % 2], slice(0, numel), self.weight_home[j], None)

    def load_cache(self, j):
        with torch.cuda.stream(self.streams["load_cache"]):
            general_copy(self.cache_read_buf[j % 2], None, self.cache_home[j], None)

    def store_cache(self, j, pos):
        with torch.cuda.stream(self.streams["store_cache"]):
            general_copy(self.cache_home[j], slice(pos, pos + 1), self.cache_write_buf[j % 2], None)

    def compute_layer(self, j, hidden, pos):
        return self.layers[j](hidden, self.weight_buf[j % 2], self.cache_read_buf[j % 2], self.cache_write_buf[j % 2], pos)

    def sync(self):
        torch.cuda.synchronize()

    def generate(self, hidden, start_pos, gen_len):
        n = len(self.layers)
        self.sync()  # the buffers may still be in use by a previous call's kernels
        self.load_weight(0)
        self.load_cache(0)
        self.sync()
        for pos in range(start_pos, start_pos + gen_len):
            for j in range(n):
                if j + 1 < n:
                    self.load_weight(j + 1)
                    self.load_cache(j + 1)
                if j > 0:
                    self.store_cache(j - 1, pos)
                # One synchronize per token is enough: the streams only touch double buffers.
                hidden = self.compute_layer(j, hidden, pos)
            self.store_cache(n - 1, pos)
            self.sync()
            self.load_weight(0)
            self.load_cache(0)
            self.sync()
        return hidden
