import logging
from dataclasses import dataclass

import numpy as np
from numba import cuda

from .checkpoint import CheckpointJob, CheckpointWriter
from .kernels import add_source, diffuse_step, launch_config

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class SimConfig:
    shape: tuple[int, int] = (2048, 2048)
    alpha: float = 0.2
    source_xy: tuple[int, int] = (1024, 1024)
    source_amount: float = 1.0
    checkpoint_every: int = 500


class HeatSimulation:

    def __init__(self, cfg: SimConfig, writer: CheckpointWriter):
        self.cfg = cfg
        self._writer = writer
        self._compute = cuda.stream()
        self._copy = cuda.stream()
        self._grid, self._block = launch_config(cfg.shape)
        initial = np.zeros(cfg.shape, dtype=np.float32)
        self._d_cur = cuda.to_device(initial, stream=self._compute)
        self._d_next = cuda.device_array_like(initial, stream=self._compute)
        self._pinned = [cuda.pinned_array(cfg.shape, dtype=np.float32) for _ in range(2)]
        self._n_checkpoints = 0

    def run(self, n_steps: int) -> None:
        x, y = self.cfg.source_xy
        for step in range(1, n_steps + 1):
            add_source[1, 1, self._compute](self._d_cur, x, y, self.cfg.source_amount)
            diffuse_step[self._grid, self._block, self._compute](self._d_cur, self._d_next,
                                                                  self.cfg.alpha)
            self._d_cur, self._d_next = self._d_next, self._d_cur
            if step % self.cfg.checkpoint_every == 0:
                self._checkpoint(step)
        self._compute.synchronize()

    def _checkpoint(self, step: int) -> None:
        slot = self._n_checkpoints % len(self._pinned)
        self._n_checkpoints += 1
        self._writer.acquire(slot)
        host = self._pinned[slot]
        done = cuda.event(timing=False)
        # expect: KVG001
        self._d_cur.copy_to_host(host, stream=self._copy)
        done.record(stream=self._copy)
        # Keep the time loop from overwriting the snapshot source before the copy finishes.
        done.wait(stream=self._compute)
        # expect: KVG003
        logger.info("step %d: mean temperature %.6f", step, float(host.mean()))
        self._writer.submit(CheckpointJob(step=step, slot=slot, array=host, ready=done))
