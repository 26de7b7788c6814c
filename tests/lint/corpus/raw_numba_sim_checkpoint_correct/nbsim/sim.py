"""A numba-CUDA simulation (or differentiable-physics training) loop that writes position
checkpoints from pinned memory and hot-swaps its parameters, overlapping both transfers
with the integration kernels through a dedicated I/O stream."""

from dataclasses import dataclass

import numpy as np
from numba import cuda

from .io_ops import snapshot_positions, upload_params
from .kernels import integrate


@dataclass
class SimStreams:
    compute: object
    io: object


class ParticleSim:
    def __init__(self, pos0, vel0, params0, threads=128):
        self.streams = SimStreams(compute=cuda.stream(), io=cuda.stream())
        self.d_pos = cuda.to_device(pos0, stream=self.streams.compute)
        self.d_vel = cuda.to_device(vel0, stream=self.streams.compute)
        self.d_params = cuda.to_device(params0, stream=self.streams.compute)
        self.h_pos = cuda.pinned_array(pos0.shape, dtype=pos0.dtype)
        self.threads = threads
        self.blocks = (pos0.shape[0] + threads - 1) // threads

    def run(self, n_steps, dt, ckpt_every, fh, schedule):
        for step in range(n_steps):
            integrate[self.blocks, self.threads, self.streams.compute](
                self.d_pos, self.d_vel, self.d_params, dt
            )
            if step in schedule:
                upload_params(self.d_params, np.asarray(schedule[step], dtype=np.float32), self.streams)
            if step % ckpt_every == 0:
                done = snapshot_positions(self.d_pos, self.h_pos, self.streams)
                done.synchronize()
                fh.write(self.h_pos.tobytes())
        self.streams.compute.synchronize()
