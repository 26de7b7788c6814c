"""Per-layer decode schedule overlapping weight streaming with compute."""
from __future__ import annotations

import logging

import cupy as cp
import cupyx
import numpy as np

from .disk_tier import DiskCacheTier
from .policy import OffloadPolicy
from .streams import StreamSet
from .weight_ring import WeightRing

logger = logging.getLogger(__name__)


class FlexEngine:

    def __init__(self, policy: OffloadPolicy, hidden_size: int,
                 num_layers: int, dtype=np.float16):
        self.policy = policy
        self.num_layers = num_layers
        assert num_layers % policy.num_weight_slots == 0
        self.dtype = dtype
        self.w_shape = (hidden_size, hidden_size)
        self.host_weights = []
        for _ in range(num_layers):
            w = cupyx.empty_pinned(self.w_shape, dtype=dtype)
            w[...] = np.random.standard_normal(self.w_shape) * 0.02
            self.host_weights.append(w)
        self.streams = StreamSet()
        slot_bytes = int(np.prod(self.w_shape)) * np.dtype(dtype).itemsize
        self.ring = WeightRing(policy.num_weight_slots, slot_bytes)
        self.disk = (DiskCacheTier(policy.offload_dir, self.streams.store_cache)
                     if policy.cache_disk else None)

    def _prefetch(self, layer: int) -> None:
        self.ring.prefetch(self.ring.slot_of(layer), self.host_weights[layer],
                           self.streams.load_weight)

    def decode(self, hidden: cp.ndarray, gen_len: int, pos0: int) -> cp.ndarray:
        compute = self.streams.compute
        for layer in range(self.ring.num_slots):
            self._prefetch(layer)
        for step in range(gen_len):
            for layer in range(self.num_layers):
                slot = self.ring.slot_of(layer)
                compute.wait_event(self.ring.ready[slot])
                with compute:
                    w = self.ring.view(slot, self.w_shape, self.dtype)
                    k_new = hidden @ w
                    v_new = cp.tanh(k_new)
                    hidden = hidden + v_new
                    self.ring.consumed[slot].record(compute)
                    computed = compute.record()
                nxt = (layer + self.ring.num_slots) % self.num_layers
                if step < gen_len - 1 or nxt > layer:
                    self._prefetch(nxt)
                if self.disk is not None:
                    self.disk.spill(layer, pos0 + step, k_new, v_new, computed)
        compute.synchronize()
        logger.info("decoded %d steps", gen_len)
        return hidden
