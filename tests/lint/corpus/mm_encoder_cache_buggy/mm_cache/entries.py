from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Optional

import cupy as cp
import numpy as np


class Location(enum.Enum):
    GPU = "gpu"
    CPU = "cpu"


@dataclass
class CacheEntry:
    mm_hash: str
    num_tokens: int
    location: Location
    device: Optional[cp.ndarray] = None
    host: Optional[np.ndarray] = None  # pinned
    # Signals that ``device`` holds valid data (encoder output or finished reload).
    ready: Optional[cp.cuda.Event] = None
    # Signals that the device->host spill into ``host`` has completed.
    spilled: Optional[cp.cuda.Event] = None

    @property
    def buffer_key(self) -> tuple[tuple[int, ...], str]:
        arr = self.device if self.device is not None else self.host
        return tuple(arr.shape), arr.dtype.str


@dataclass(frozen=True)
class MMItem:
    mm_hash: str
    pixel_values: np.ndarray  # [C, H, W] float32 on the host
