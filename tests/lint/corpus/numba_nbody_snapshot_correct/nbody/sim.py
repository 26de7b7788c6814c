from dataclasses import dataclass
from typing import List, Optional
from concurrent.futures import Future

import numpy as np
from numba import cuda

from .kernels import drift, kick
from .writer import SnapshotWriter


@dataclass
class SimParams:
    dt: float = 1e-3
    softening: float = 1e-2
    threads_per_block: int = 128
    snapshot_every: int = 100
    host_buffers: int = 2


class NBodySim:
    def __init__(self, pos: np.ndarray, vel: np.ndarray, mass: np.ndarray,
                 params: SimParams, writer: SnapshotWriter):
        self.params = params
        self.writer = writer
        self.stream = cuda.stream()
        self.d_pos = cuda.to_device(pos.astype(np.float64), stream=self.stream)
        self.d_vel = cuda.to_device(vel.astype(np.float64), stream=self.stream)
        self.d_mass = cuda.to_device(mass.astype(np.float64), stream=self.stream)
        n = pos.shape[0]
        self._host = [cuda.pinned_array((n, 3), dtype=np.float64)
                      for _ in range(params.host_buffers)]
        self._pending: List[Optional[Future]] = [None] * params.host_buffers
        self._blocks = (n + params.threads_per_block - 1) // params.threads_per_block
        self.step_no = 0

    def step(self) -> None:
        p = self.params
        kick[self._blocks, p.threads_per_block, self.stream](
            self.d_pos, self.d_vel, self.d_mass, p.dt, p.softening ** 2)
        drift[self._blocks, p.threads_per_block, self.stream](self.d_pos, self.d_vel, p.dt)
        self.step_no += 1
        if self.step_no % p.snapshot_every == 0:
            self.snapshot()

    def snapshot(self) -> Future:
        k = (self.step_no // self.params.snapshot_every) % len(self._host)
        prev = self._pending[k]
        if prev is not None:
            prev.result()          # the writer is done with this host buffer
        host = self._host[k]
        self.d_pos.copy_to_host(host, stream=self.stream)
        landed = cuda.event(timing=False)
        landed.record(self.stream)
        fut = self.writer.submit(self.step_no, self.step_no * self.params.dt, host, landed)
        self._pending[k] = fut
        return fut

    def run(self, nsteps: int) -> None:
        for _ in range(nsteps):
            self.step()
        self.stream.synchronize()
        for fut in self._pending:
            if fut is not None:
                fut.result()
