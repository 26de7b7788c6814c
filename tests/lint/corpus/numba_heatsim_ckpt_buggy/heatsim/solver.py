from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import cuda

from . import kernels


@dataclass(frozen=True)
class GridSpec:
    nx: int
    ny: int
    alpha: float = 1.0e-4
    dx: float = 1.0e-2
    dt: float = 0.1
    block: tuple[int, int] = (16, 16)

    @property
    def r(self) -> float:
        r = self.alpha * self.dt / (self.dx * self.dx)
        if r > 0.25:
            raise ValueError(f"unstable step, r={r:.3f} > 0.25")
        return r

    @property
    def griddim(self) -> tuple[int, int]:
        return (math.ceil(self.nx / self.block[0]), math.ceil(self.ny / self.block[1]))


class HeatSolver:
    """Ping-pong FTCS integrator; every kernel runs on ``self.stream``."""

    def __init__(self, spec: GridSpec, u0: np.ndarray) -> None:
        self.spec = spec
        self.stream = cuda.stream()
        self._bufs = [
            cuda.to_device(u0.astype(np.float64), stream=self.stream),
            cuda.device_array(u0.shape, dtype=np.float64, stream=self.stream),
        ]
        self._cur = 0
        self.step_count = 0

    @property
    def current(self):
        return self._bufs[self._cur]

    @property
    def shape(self) -> tuple[int, int]:
        return (self.spec.nx, self.spec.ny)

    def add_source(self, cx: int, cy: int, radius: float, amplitude: float) -> None:
        kernels.inject_source[self.spec.griddim, self.spec.block, self.stream](
            self.current, cx, cy, radius, amplitude
        )

    def advance(self, n: int) -> None:
        r = self.spec.r
        for _ in range(n):
            src, dst = self._bufs[self._cur], self._bufs[1 - self._cur]
            kernels.diffuse[self.spec.griddim, self.spec.block, self.stream](src, dst, r)
            self._cur ^= 1
        self.step_count += n
