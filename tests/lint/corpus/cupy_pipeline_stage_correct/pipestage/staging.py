from __future__ import annotations

import cupy as cp
import cupyx
import numpy as np

from .config import StageConfig


class PinnedStager:
    """Ring of page-locked host buffers used to bounce activations between devices."""

    def __init__(self, cfg: StageConfig) -> None:
        self._cfg = cfg
        self._slots: list[np.ndarray] = [
            cupyx.empty_pinned(cfg.act_shape, dtype=cfg.dtype) for _ in range(cfg.n_slots)
        ]
        # Event marking the last H2D read of each slot on the destination device.
        self._slot_free: list[cp.cuda.Event | None] = [None] * cfg.n_slots

    def slot_for(self, micro_batch_idx: int) -> int:
        slot = micro_batch_idx % self._cfg.n_slots
        pending = self._slot_free[slot]
        if pending is not None:
            pending.synchronize()
            self._slot_free[slot] = None
        return slot

    def stage_out(self, src: cp.ndarray, slot: int, stream: cp.cuda.Stream) -> np.ndarray:
        """Enqueue ``src`` -> pinned slot on ``stream``; returns the host view."""
        host = self._slots[slot]
        src.get(stream=stream, out=host, blocking=False)
        return host

    def stage_in(self, slot: int, dst: cp.ndarray, stream: cp.cuda.Stream) -> None:
        """Enqueue pinned slot -> ``dst`` on ``stream`` (the caller is on dst's device)."""
        dst.set(self._slots[slot], stream=stream)
        ev = cp.cuda.Event(block=False, disable_timing=True)
        ev.record(stream)
        self._slot_free[slot] = ev
