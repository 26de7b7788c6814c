from __future__ import annotations

import enum
import logging
from typing import Dict

import cupy

from .config import SpillConfig
from .memory import SpillManager

logger = logging.getLogger(__name__)


class Stage(enum.Enum):
    NORMALIZE = "normalize"
    PROJECT = "project"
    REDUCE = "reduce"


_normalize = cupy.ElementwiseKernel(
    "T x, T mean, T inv_std",
    "T y",
    "y = (x - mean) * inv_std",
    "spillpipe_normalize",
)


class FeaturePipeline:
    def __init__(
        self, weights: cupy.ndarray, config: SpillConfig, manager: SpillManager
    ) -> None:
        self._weights = weights
        self._config = config
        self._manager = manager
        self._compute = cupy.cuda.Stream(non_blocking=True)
        self._resident: Dict[str, cupy.ndarray] = {}

    def _pressure(self) -> float:
        pool = cupy.get_default_memory_pool()
        _, total = cupy.cuda.Device().mem_info
        return pool.used_bytes() / total

    def _park(self, key: str, arr: cupy.ndarray) -> None:
        if self._pressure() < self._config.device_high_watermark:
            self._resident[key] = arr
            return
        ready = cupy.cuda.Event(disable_timing=True)
        ready.record(self._compute)
        self._manager.spill(key, arr, ready)

    def fetch(self, key: str) -> cupy.ndarray:
        arr = self._resident.pop(key, None)
        if arr is not None:
            return arr
        return self._manager.restore(key, self._compute)

    def run_batch(self, batch_id: int, x: cupy.ndarray) -> cupy.ndarray:
        with self._compute:
            x = x.astype(cupy.float32, copy=False)
            mean = x.mean(axis=0, keepdims=True)
            inv_std = 1.0 / (x.std(axis=0, keepdims=True) + 1e-6)
            normed = _normalize(x, mean, inv_std)
            projected = cupy.matmul(normed, self._weights)
        self._park(f"{batch_id}/{Stage.PROJECT.value}", projected)

        with self._compute:
            reduced = cupy.tanh(projected).sum(axis=1)
        return reduced
