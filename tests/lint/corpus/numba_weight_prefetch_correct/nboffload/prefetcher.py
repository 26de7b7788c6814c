from __future__ import annotations

import logging

import numpy as np
from numba import cuda

from .config import OffloadConfig

logger = logging.getLogger(__name__)


class WeightPrefetcher:
    """Double-buffered host-to-device weight loads on a dedicated stream."""

    def __init__(self, cfg: OffloadConfig, host_weights: list[np.ndarray]) -> None:
        self.cfg = cfg
        self.stream = cuda.stream()
        self.host_weights = []
        for w in host_weights:
            pinned = cuda.pinned_array(w.shape, dtype=cfg.dtype)
            pinned[...] = w
            self.host_weights.append(pinned)
        self.slots = [cuda.device_array(cfg.weight_shape, dtype=cfg.dtype) for _ in range(cfg.num_slots)]
        self._released = [cuda.event(timing=False) for _ in range(cfg.num_slots)]
        self._loaded = [cuda.event(timing=False) for _ in range(cfg.num_slots)]

    def slot_of(self, layer_idx: int) -> int:
        return layer_idx % self.cfg.num_slots

    def on_layer_done(self, layer_idx: int, compute_stream) -> None:
        """Post-layer hook: the slot used by ``layer_idx`` may be refilled after this point."""
        self._released[self.slot_of(layer_idx)].record(compute_stream)

    def prefetch(self, layer_idx: int) -> None:
        if layer_idx >= self.cfg.num_layers:
            return
        slot = self.slot_of(layer_idx)
        self._released[slot].wait(self.stream)
        self.slots[slot].copy_to_device(self.host_weights[layer_idx], stream=self.stream)
        self._loaded[slot].record(self.stream)

    def weights_for(self, layer_idx: int, compute_stream):
        slot = self.slot_of(layer_idx)
        self._loaded[slot].wait(compute_stream)
        return self.slots[slot]
