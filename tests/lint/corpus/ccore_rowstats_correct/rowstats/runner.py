from __future__ import annotations

import dataclasses

import numpy as np
from cuda.bindings import driver
from cuda.core.experimental import Device, LaunchConfig, launch

from ._source import BLOCK, build_row_stats
from .batch_copy import copy_batch_d2h
from .hostmem import PinnedHostBuffer, check


@dataclasses.dataclass(frozen=True)
class RowStats:
    mean: np.ndarray
    maxabs: np.ndarray


class RowStatsRunner:
    """Computes per-row statistics of a (rows, cols) float32 matrix on one GPU."""

    def __init__(self, rows: int, cols: int, device_id: int = 0) -> None:
        self.rows, self.cols = rows, cols
        self.dev = Device(device_id)
        self.dev.set_current()
        self._compute = self.dev.create_stream()
        self._readback = self.dev.create_stream()
        self._kernel = build_row_stats(self.dev)
        self._cfg = LaunchConfig(grid=rows, block=BLOCK)

        self._x = self.dev.allocate(rows * cols * 4, stream=self._compute)
        self._mean = self.dev.allocate(rows * 4, stream=self._compute)
        self._maxabs = self.dev.allocate(rows * 4, stream=self._compute)
        self._host = PinnedHostBuffer(2 * rows * 4)
        self._host_stats = self._host.view(np.float32, (2, rows))

    def _upload(self, x: np.ndarray) -> None:
        x = np.ascontiguousarray(x, dtype=np.float32)
        (err,) = driver.cuMemcpyHtoDAsync(
            self._x.handle, x.ctypes.data, x.nbytes, self._compute.handle
        )
        check(err)

    def __call__(self, x: np.ndarray) -> RowStats:
        if x.shape != (self.rows, self.cols):
            raise ValueError(f"expected {(self.rows, self.cols)}, got {x.shape}")
        self._upload(x)
        launch(
            self._compute, self._cfg, self._kernel,
            self._x, np.int32(self.rows), np.int32(self.cols), self._mean, self._maxabs,
        )
        kernels_done = self._compute.record()
        self._readback.wait(kernels_done)

        row_bytes = self.rows * 4
        copy_batch_d2h(
            dsts=[self._host.ptr, self._host.ptr + row_bytes],
            srcs=[int(self._mean.handle), int(self._maxabs.handle)],
            sizes=[row_bytes, row_bytes],
            device_ordinal=self.dev.device_id,
            stream=self._readback.handle,
        )
        self._readback.sync()
        stats = self._host_stats.copy()
        return RowStats(mean=stats[0], maxabs=stats[1])

    def close(self) -> None:
        self._compute.sync()
        self._readback.sync()
        for buf in (self._x, self._mean, self._maxabs):
            buf.close(self._compute)
        self._host.close()
