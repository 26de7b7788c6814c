"""Decoder whose weights and KV cache live in pinned CPU memory."""

from __future__ import annotations

from functools import partial

import torch

from flexgen_mt import config, ops
from flexgen_mt.loader import StreamLoaderPool, wait_loaded


class OffloadedDecoder:
    def __init__(self, num_layers: int, hidden: int, batch: int, max_seq: int):
        self.num_layers = num_layers
        dev = config.DEVICE
        self.w_home = [torch.randn(4 * hidden, hidden).pin_memory() for _ in range(num_layers)]
        self.kv_home = [torch.zeros(2, max_seq, batch, hidden).pin_memory()
                        for _ in range(num_layers)]
        self.w_buf = [torch.empty(4 * hidden, hidden, device=dev)
                      for _ in range(config.NUM_BUFFERS)]
        self.kv_buf = [torch.empty(2, max_seq, batch, hidden, device=dev)
                       for _ in range(config.NUM_BUFFERS)]
        self.buf_free = [torch.cuda.Event() for _ in range(config.NUM_BUFFERS)]
        self.weight_pool = StreamLoaderPool(config.WEIGHT_LOADER_STREAMS, "w-load")
        self.cache_pool = StreamLoaderPool(config.CACHE_LOADER_STREAMS, "kv-load")
        self.compute = torch.cuda.current_stream()

    def _prefetch(self, j: int, seq_len: int):
        p = j % config.NUM_BUFFERS
        w_fut = self.weight_pool.submit(
            partial(ops.load_weight, self.w_home[j], self.w_buf[p]),
            after=self.buf_free[p])
        kv_fut = self.cache_pool.submit(
            partial(ops.load_cache, self.kv_home[j], self.kv_buf[p]), seq_len)
        return w_fut, kv_fut

    def step(self, hidden: torch.Tensor, seq_len: int) -> torch.Tensor:
        pending = {0: self._prefetch(0, seq_len)}
        for j in range(self.num_layers):
            if j + 1 < self.num_layers:
                pending[j + 1] = self._prefetch(j + 1, seq_len)
            w_fut, kv_fut = pending.pop(j)
            wait_loaded(self.compute, w_fut)
            wait_loaded(self.compute, kv_fut)
            p = j % config.NUM_BUFFERS
            with torch.cuda.stream(self.compute):
                hidden, kv_new = ops.decode_layer(hidden, self.w_buf[p], self.kv_buf[p], seq_len)
                self.buf_free[p].record()
                # Same stream as the producer: ordered without extra events.
                self.kv_home[j][:, seq_len].copy_(kv_new, non_blocking=True)
        torch.cuda.synchronize()
        return hidden
