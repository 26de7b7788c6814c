from __future__ import annotations

import logging
import math

import numpy as np
from numba import cuda

from .config import OffloadConfig
from .hooks import LayerHooks
from .prefetcher import WeightPrefetcher

logger = logging.getLogger(__name__)


@cuda.jit
def dense_relu(x, w, out):
    row, col = cuda.grid(2)
    if row < out.shape[0] and col < out.shape[1]:
        acc = 0.0
        for k in range(x.shape[1]):
            acc += x[row, k] * w[k, col]
        out[row, col] = acc if acc > 0.0 else 0.0


class OffloadedMLP:
    def __init__(self, cfg: OffloadConfig, host_weights: list[np.ndarray]) -> None:
        self.cfg = cfg
        self.compute = cuda.stream()
        self.hooks = LayerHooks()
        self.prefetcher = WeightPrefetcher(cfg, host_weights)
        self.hooks.register_post_layer(self.prefetcher.on_layer_done)
        shape = (cfg.max_tokens, cfg.hidden)
        self._act = [cuda.device_array(shape, dtype=cfg.dtype) for _ in range(2)]

    def forward(self, x: np.ndarray) -> np.ndarray:
        n = x.shape[0]
        tx, ty = self.cfg.threads
        grid = (math.ceil(n / tx), math.ceil(self.cfg.hidden / ty))
        cur = self._act[0][:n]
        cur.copy_to_device(x, stream=self.compute)

        for i in range(min(self.cfg.num_slots - 1, self.cfg.num_layers)):
            self.prefetcher.prefetch(i)
        for i in range(self.cfg.num_layers):
            self.prefetcher.prefetch(i + self.cfg.num_slots - 1)
            w = self.prefetcher.weights_for(i, self.compute)
            nxt = self._act[(i + 1) % 2][:n]
            dense_relu[grid, (tx, ty), self.compute](cur, w, nxt)
            self.hooks.fire_post_layer(i, self.compute)
            cur = nxt

        out = cur.copy_to_host(stream=self.compute)
        self.compute.synchronize()
        logger.debug("forward: %d tokens through %d layers", n, self.cfg.num_layers)
        return out
