from dataclasses import dataclass, field

import cupy as cp
import cupyx
import numpy as np

from .config import SpectrogramConfig


@dataclass
class Slot:
    """Staging buffers for one chunk in flight."""

    index: int
    h_in: np.ndarray  # pinned
    d_in: cp.ndarray
    d_out: cp.ndarray
    h_out: np.ndarray  # pinned
    uploaded: cp.cuda.Event = field(default_factory=cp.cuda.Event)
    downloaded: cp.cuda.Event = field(default_factory=cp.cuda.Event)


def make_slots(cfg: SpectrogramConfig) -> list[Slot]:
    out_shape = (cfg.frames_per_chunk, cfg.n_bins)
    return [
        Slot(index=i,
             h_in=cupyx.empty_pinned((cfg.samples_per_chunk,), dtype=np.float32),
             d_in=cp.empty((cfg.samples_per_chunk,), dtype=cp.float32),
             d_out=cp.empty(out_shape, dtype=cp.float32),
             h_out=cupyx.empty_pinned(out_shape, dtype=np.float32))
        for i in range(cfg.n_slots)
    ]
