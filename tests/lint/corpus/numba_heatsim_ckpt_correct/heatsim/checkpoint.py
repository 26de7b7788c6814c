from __future__ import annotations

import queue

import numpy as np
from numba import cuda

from .solver import HeatSolver
from .writer import SnapshotJob, SnapshotWriter


class Checkpointer:
    """Copies solver state to pinned host memory on a side stream so stepping is not stalled."""

    def __init__(self, solver: HeatSolver, out_dir: str, depth: int = 2) -> None:
        self._solver = solver
        self._stream = cuda.stream()
        self._pinned = [cuda.pinned_array(solver.shape, dtype=np.float64) for _ in range(depth)]
        self._free: "queue.Queue[int]" = queue.Queue()
        for slot in range(depth):
            self._free.put(slot)
        self._writer = SnapshotWriter(out_dir, release=self._free.put)
        self._writer.start()

    def snapshot(self) -> None:
        slot = self._free.get()
        host = self._pinned[slot]
        self._solver.last_write.wait(stream=self._stream)
        self._solver.current.copy_to_host(host, stream=self._stream)
        done = cuda.event(timing=False)
        done.record(stream=self._stream)
        self._writer.submit(SnapshotJob(self._solver.step_count, slot, host, done))

    def restore(self, path: str, step: int) -> None:
        data = np.load(path)
        if data.shape != self._solver.shape:
            raise ValueError(f"checkpoint shape {data.shape} != grid {self._solver.shape}")
        staging = cuda.pinned_array_like(data)
        staging[...] = data
        # Kernels already queued on the solver stream still read the state buffers.
        self._solver.stream.synchronize()
        self._solver.current.copy_to_device(staging, stream=self._stream)
        self._stream.synchronize()
        self._solver.step_count = step

    def close(self) -> None:
        self._writer.close()
