from __future__ import annotations

import queue

import cupyx
import numpy as np

from .config import RingConfig


class PinnedRing:
    """Fixed set of page-locked host slots recycled between the GPU fetch and the host consumer."""

    def __init__(self, cfg: RingConfig) -> None:
        self._slots = [
            cupyx.empty_pinned(cfg.slot_shape, dtype=np.float32) for _ in range(cfg.n_slots)
        ]
        self._free: queue.SimpleQueue[int] = queue.SimpleQueue()
        for idx in range(cfg.n_slots):
            self._free.put(idx)

    def __len__(self) -> int:
        return len(self._slots)

    def __getitem__(self, idx: int) -> np.ndarray:
        return self._slots[idx]

    def acquire(self, timeout: float | None = None) -> int:
        return self._free.get(timeout=timeout)

    def release(self, idx: int) -> None:
        self._free.put(idx)
