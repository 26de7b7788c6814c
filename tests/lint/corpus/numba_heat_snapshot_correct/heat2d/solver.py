"""Time stepping on a numba compute stream, with snapshots copied out on an I/O stream so
that the stencil keeps running while a frame is transferred and written.

``advance(n)`` queues n steps and takes a snapshot every ``output_every`` steps; each
snapshot orders the I/O stream behind the steps queued so far with an event of its own."""

import numpy as np
from numba import cuda

from heat2d.kernels import add_heat, diffuse
from heat2d.output import FrameRing, SnapshotWriter

BLOCK = (16, 16)


class HeatSolver:
    def __init__(self, u0: np.ndarray, alpha: float, out_dir: str, output_every: int = 500):
        self.alpha = np.float32(alpha)
        self.output_every = output_every
        self.step_count = 0
        self.compute = cuda.stream()
        self.io = cuda.stream()
        u0 = np.ascontiguousarray(u0, dtype=np.float32)
        with cuda.pinned(u0):
            self.u = cuda.to_device(u0, stream=self.compute)
            self.u_next = cuda.device_array_like(self.u, stream=self.compute)
            self.compute.synchronize()
        ny, nx = u0.shape
        self.grid = ((ny + BLOCK[0] - 1) // BLOCK[0], (nx + BLOCK[1] - 1) // BLOCK[1])
        self.ring = FrameRing(u0.shape, np.float32)
        self.writer = SnapshotWriter(out_dir, self.ring)

    def _step(self) -> None:
        diffuse[self.grid, BLOCK, self.compute](self.u, self.u_next, self.alpha)
        self.u, self.u_next = self.u_next, self.u
        self.step_count += 1

    def heat(self, cy: int, cx: int, radius: int, power: float) -> None:
        add_heat[self.grid, BLOCK, self.compute](self.u, cy, cx, radius, np.float32(power))

    def advance(self, n_steps: int) -> None:
        for _ in range(n_steps):
            self._step()
            if self.step_count % self.output_every == 0:
                self.snapshot()

    def snapshot(self) -> None:
        slot, frame = self.ring.acquire()
        ready = cuda.event(timing=False)
        ready.record(stream=self.compute)
        ready.wait(stream=self.io)
        self.u.copy_to_host(frame, stream=self.io)
        landed = cuda.event(timing=False)
        landed.record(stream=self.io)
        # the stencil writes the buffer being copied two steps from now
        landed.wait(stream=self.compute)
        self.writer.submit(self.step_count, slot, landed)

    def result(self) -> np.ndarray:
        out = np.empty(self.u.shape, dtype=np.float32)
        with self.compute.auto_synchronize():
            self.u.copy_to_host(out, stream=self.compute)
        return out

    def close(self) -> None:
        self.io.synchronize()
        self.writer.close()
