import logging
from dataclasses import dataclass

import numpy as np
from numba import cuda
from numba.cuda.random import create_xoroshiro128p_states

from langevin_gpu.constants import (
    DEFAULT_N_CHUNKS,
    DT,
    GAMMA,
    KT,
    MAX_TEMPERATURE_RATIO,
    STEPS_PER_LAUNCH,
    THREADS_PER_BLOCK as TPB,
)
from langevin_gpu.kernels import baoab_integrate, count_nonfinite, kinetic_energy, zero_slot
from langevin_gpu.streams import ChunkStreams

logger = logging.getLogger(__name__)


@dataclass
class EnsembleConfig:
    n_particles: int
    n_chunks: int = DEFAULT_N_CHUNKS
    dt: float = DT
    gamma: float = GAMMA
    kT: float = KT
    k_spring: float = 1.0
    steps_per_launch: int = STEPS_PER_LAUNCH
    overlap_readback: bool = True
    probe_first_chunk: bool = False
    seed: int = 1234


class LangevinEnsemble:
    def __init__(self, cfg: EnsembleConfig, x0: np.ndarray, v0: np.ndarray):
        self.cfg = cfg
        self.streams = ChunkStreams(cfg.n_chunks)
        self.bounds = np.linspace(0, cfg.n_particles, cfg.n_chunks + 1).astype(np.int64)
        self.h_x = cuda.pinned_array(cfg.n_particles, dtype=np.float64)
        self.h_v = cuda.pinned_array(cfg.n_particles, dtype=np.float64)
        self.h_x[:] = x0
        self.h_v[:] = v0
        self.h_energy = cuda.pinned_array(cfg.n_chunks, dtype=np.float64)
        self.h_bad = cuda.mapped_array(1, dtype=np.int32)
        self.d_energy = cuda.device_array(cfg.n_chunks, dtype=np.float64)
        self.d_x, self.d_v, self.rng = [], [], []
        for c in range(cfg.n_chunks):
            lo, hi = self.bounds[c], self.bounds[c + 1]
            s = self.streams.compute[c]
            self.d_x.append(cuda.to_device(self.h_x[lo:hi], stream=s))
            self.d_v.append(cuda.to_device(self.h_v[lo:hi], stream=s))
            self.rng.append(create_xoroshiro128p_states(int(hi - lo), seed=cfg.seed + c, stream=s))

    def _blocks(self, c: int) -> int:
        return (self.d_x[c].shape[0] + TPB - 1) // TPB

    def _launch_chunk(self, c: int) -> None:
        cfg, s, blocks = self.cfg, self.streams.compute[c], self._blocks(c)
        baoab_integrate[blocks, TPB, s](
            self.d_x[c], self.d_v[c], self.rng[c], cfg.steps_per_launch, cfg.dt, cfg.gamma, cfg.kT, cfg.k_spring
        )
        zero_slot[1, 1, s](self.d_energy, c)
        kinetic_energy[blocks, TPB, s](self.d_v[c], self.d_energy, c)

    def _read_energy(self, c: int) -> None:
        if self.cfg.overlap_readback:
            stream = self.streams.readback_after(c)
        else:
            stream = self.streams.compute[c]
        # expect: KVG001
        self.d_energy[c : c + 1].copy_to_host(self.h_energy[c : c + 1], stream=stream)
        self.streams.energy_ready[c].record(stream=stream)

    def advance(self) -> float:
        for c in range(self.cfg.n_chunks):
            self._launch_chunk(c)
            self._read_energy(c)
            if c == 0 and self.cfg.probe_first_chunk:
                self.streams.compute[0].synchronize()
                n0 = self.bounds[1] - self.bounds[0]
                # expect: KVG003
                temp = 2.0 * float(self.h_energy[0]) / n0
                if not np.isfinite(temp) or temp > MAX_TEMPERATURE_RATIO * self.cfg.kT:
                    raise FloatingPointError(f"probe chunk diverged: T={temp:.3g}")
        self.streams.synchronize()
        return 2.0 * float(self.h_energy.sum()) / self.cfg.n_particles

    def check_finite(self) -> bool:
        self.h_bad[0] = 0
        for c in range(self.cfg.n_chunks):
            count_nonfinite[self._blocks(c), TPB, self.streams.compute[c]](self.d_x[c], self.h_bad)
        self.streams.synchronize()
        return int(self.h_bad[0]) == 0

    def snapshot(self) -> np.ndarray:
        for c in range(self.cfg.n_chunks):
            lo, hi = self.bounds[c], self.bounds[c + 1]
            self.d_x[c].copy_to_host(self.h_x[lo:hi], stream=self.streams.compute[c])
        self.streams.synchronize()
        return np.array(self.h_x, copy=True)
