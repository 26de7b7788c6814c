from typing import List, Optional

import cupy as cp
import numpy as np

from cuspec.config import SpectrometerConfig


def pinned_empty(shape, dtype) -> np.ndarray:
    dtype = np.dtype(dtype)
    count = int(np.prod(shape))
    mem = cp.cuda.alloc_pinned_memory(count * dtype.itemsize)
    return np.frombuffer(mem, dtype, count).reshape(shape)


class SlotRing:
    """Device input/output slots with pinned staging and per-slot events."""

    def __init__(self, cfg: SpectrometerConfig):
        self.n_slots = cfg.n_slots
        self.d_in = [cp.empty(cfg.samples_per_chunk, dtype=cp.float32) for _ in range(cfg.n_slots)]
        self.d_out = [cp.empty(cfg.n_out, dtype=cp.float32) for _ in range(cfg.n_slots)]
        self.h_stage = pinned_empty((cfg.n_slots, cfg.samples_per_chunk), np.float32)
        self.h_out = pinned_empty((cfg.n_slots, cfg.n_out), np.float32)
        self.uploaded = [cp.cuda.Event(disable_timing=True) for _ in range(cfg.n_slots)]
        self.computed = [cp.cuda.Event(disable_timing=True) for _ in range(cfg.n_slots)]
        self.downloaded = [cp.cuda.Event(disable_timing=True) for _ in range(cfg.n_slots)]
